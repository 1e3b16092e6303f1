/**
 * The real `petstore serve`, spawned on a temporary SQLite file or a new PostgreSQL database
 * (reached directly or through PgBouncer), and the stores it serves from.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { stringify } from "lossless-json";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  createTestDatabase,
  ROUTES,
  routeSuffix,
  routeUnavailable,
  skippedSuite,
  type Route,
} from "../../support/postgres-database.js";
import { tempDir } from "../../support/temp-dir.js";
import { assertBuilt, BIN, childEnv, type Env } from "./binary.js";

/** The key the helpers configure on servers they start. */
export const API_KEY = "e2e-key-4b9f2c";

/**
 * One entry of a `--seed` file as written: `petId`, as in the file format (the server reads it
 * into a SeedPet, whose `id` is a Pet's). A bigint `petId` goes beyond 2^53 exactly.
 */
export interface SeedFileEntry {
  petId: number | bigint;
  name: string;
  status: "available" | "pending" | "sold";
  quantity: number;
}

export interface ServerOptions {
  /** Pets to load with --seed (written to a temp file), or the path of a seed file. */
  seed?: readonly SeedFileEntry[] | string;
  /** Extra environment; PETSTORE_API_KEYS defaults to API_KEY. */
  env?: Env;
  /** Extra arguments after `serve --port 0 --db <file>`. */
  args?: readonly string[];
  /** Use this database file instead of a new temporary one (e.g. to test restarts). */
  dbPath?: string;
  /** Serve from PostgreSQL (PETSTORE_DATABASE_URL) instead of a SQLite file: no `--db`. */
  databaseUrl?: string;
}

export interface RunningServer {
  /** Base URL from the `listening on` line, ending in /v1. */
  url: string;
  port: number;
  dbPath: string;
  process: ChildProcessByStdio<null, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` (SIGTERM by default), waits for exit, removes temp files; resolves the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const LISTENING = /^listening on (https?:\/\/[^\s]+)\n/m;

/** Starts `petstore serve --port 0` on a temporary database and waits until it listens. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  assertBuilt();
  const temp = tempDir();
  const dbPath = options.dbPath ?? join(temp.dir, "petstore.db");
  const args =
    options.databaseUrl === undefined
      ? ["serve", "--port", "0", "--db", dbPath]
      : ["serve", "--port", "0"];
  if (typeof options.seed === "string") {
    args.push("--seed", options.seed);
  } else if (options.seed !== undefined) {
    const seedPath = join(temp.dir, "pets.json");
    writeFileSync(seedPath, stringify(options.seed) ?? "[]");
    args.push("--seed", seedPath);
  }
  args.push(...(options.args ?? []));
  const child = spawn(process.execPath, [BIN, ...args], {
    env: {
      ...childEnv(),
      PETSTORE_API_KEYS: API_KEY,
      ...(options.databaseUrl === undefined ? {} : { PETSTORE_DATABASE_URL: options.databaseUrl }),
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`petstore serve did not print its listening line in 15 s; stderr:\n${err}`));
    }, 15_000);
    child.stdout.on("data", () => {
      const match = LISTENING.exec(out);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`petstore serve exited with ${String(code)}; stderr:\n${err}`));
    });
  });

  return {
    url,
    port: Number(new URL(url).port),
    dbPath,
    process: child,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code] = await exited;
      temp.remove();
      return code;
    },
  };
}

/**
 * The stores a server keeps its data in: the store-relevant e2e tests run on each. PostgreSQL
 * is reached directly or through one of the run's PgBouncers (postgres-global-setup.ts).
 */
export const STORES = [
  "sqlite",
  "postgres",
  "postgres via PgBouncer (transaction)",
  "postgres via PgBouncer (session)",
] as const;
export type StoreKind = (typeof STORES)[number];
export type PostgresStoreKind = Exclude<StoreKind, "sqlite">;

/** The PostgreSQL stores alone, one for each route to the run's server. */
export const POSTGRES_STORES: readonly PostgresStoreKind[] = ROUTES.map(postgresStore);

/** The store reached by `route`: "postgres", "postgres via PgBouncer (transaction)", … */
export function postgresStore(route: Route): PostgresStoreKind {
  const kind = `postgres${routeSuffix(route)}`;
  const found = STORES.find((store): store is PostgresStoreKind => store === kind);
  if (found === undefined) throw new Error(`no store for route ${route}`);
  return found;
}

/** The route to a PostgreSQL store. */
function routeOf(kind: PostgresStoreKind): Route {
  const route = ROUTES.find((candidate) => postgresStore(candidate) === kind);
  if (route === undefined) throw new Error(`no route to ${kind}`);
  return route;
}

/** Why this run cannot make a store of `kind` (PgBouncer not installed), or undefined. */
export function storeUnavailable(kind: StoreKind): string | undefined {
  return kind === "sqlite" ? undefined : routeUnavailable(routeOf(kind));
}

type Title = string | ((store: StoreKind) => string);
const titleOf = (title: Title, store: StoreKind) =>
  typeof title === "string" ? title.replaceAll("%s", store) : title(store);

/**
 * describe.for(stores) (STORES unless said), `title`'s %s the store: a store this run cannot
 * make (PgBouncer not installed) is a skipped suite whose name says why, never a silent pass.
 */
export function describeEachStore(
  title: Title,
  body: (store: StoreKind) => void,
  stores: readonly StoreKind[] = STORES,
): void {
  for (const store of stores) {
    const name = titleOf(title, store);
    const missing = storeUnavailable(store);
    if (missing === undefined) {
      describe(name, () => {
        body(store);
      });
    } else skippedSuite(`${name}: skipped, ${missing}`);
  }
}

/** it.for(STORES), as describeEachStore: a store this run cannot make is skipped, saying why. */
export function itEachStore(
  title: Title,
  test: (store: StoreKind) => Promise<void>,
  timeout?: number,
): void {
  for (const store of STORES) {
    const name = titleOf(title, store);
    const missing = storeUnavailable(store);
    if (missing === undefined) {
      it(name, () => test(store), timeout);
    } else skippedSuite(`${name}: skipped, ${missing}`);
  }
}

/** Where servers keep their data, shared by the servers started on it and across restarts. */
export interface TestStore {
  kind: StoreKind;
  /** What startServer takes to serve from it. */
  options: Pick<ServerOptions, "dbPath" | "databaseUrl">;
  /** Deletes it (stop its servers first). */
  remove(): Promise<void>;
}

/**
 * A new, empty store: a temporary SQLite file, or a new database on the run's PostgreSQL
 * (test/support/postgres-global-setup.ts) reached directly or through a PgBouncer.
 */
export async function freshStore(kind: StoreKind): Promise<TestStore> {
  if (kind !== "sqlite") {
    const database = await createTestDatabase(routeOf(kind));
    return { kind, options: { databaseUrl: database.url }, remove: () => database.drop() };
  }
  const temp = tempDir();
  return {
    kind,
    options: { dbPath: join(temp.dir, "petstore.db") },
    remove: async () => {
      temp.remove();
    },
  };
}

/**
 * Servers of their own for one describe block (started before its tests, stopped after) on a
 * fresh store of `store` (SQLite unless said), `instances` of them on the same data (started
 * together, as behind a load balancer; one seeds), and the CLI environment to reach the
 * first, or another base URL (a proxy, another instance).
 */
export function serverForBlock(
  seed: readonly SeedFileEntry[],
  { store = "sqlite", instances = 1 }: { store?: StoreKind; instances?: number } = {},
): {
  server: (index?: number) => RunningServer;
  env: (baseUrl?: string) => Record<string, string>;
} {
  let data: TestStore | undefined;
  let servers: RunningServer[] = [];
  beforeAll(async () => {
    data = await freshStore(store);
    const { options } = data;
    const started = await Promise.allSettled(
      Array.from({ length: instances }, () => startServer({ seed, ...options })),
    );
    servers = started.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    const failed = started.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await data?.remove();
  });
  const running = (index = 0) => {
    const server = servers[index];
    if (server === undefined) throw new Error(`server ${index} did not start`);
    return server;
  };
  return {
    server: running,
    env: (baseUrl) => ({ PETSTORE_BASE_URL: baseUrl ?? running().url, PETSTORE_API_KEY: API_KEY }),
  };
}
