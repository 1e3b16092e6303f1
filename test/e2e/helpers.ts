/**
 * End-to-end helpers: spawn the real `petstore serve` on a temporary SQLite file or a new
 * PostgreSQL database, run the real CLI binary, and stand up tiny fake HTTP servers for
 * faults the real server never produces. Everything runs the built bundle (`npm run build`
 * first).
 */
import { spawn, spawnSync, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { stringify } from "lossless-json";
import { createTestDatabase } from "../support/postgres-database.js";
import { tempDir as makeTempDir } from "../support/temp-dir.js";
import { afterAll, beforeAll } from "vitest";

export const ROOT = join(import.meta.dirname, "..", "..");
export const BIN = join(ROOT, "bin", "petstore.js");
/** The key the helpers configure on servers they start. */
export const API_KEY = "e2e-key-4b9f2c";

type Env = Record<string, string | undefined>;

/** Only what a child needs from this process: no PETSTORE_*, proxy or colour settings leak in. */
function baseEnv(): Env {
  return { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Throws unless dist/ exists and is newer than every file under src/. */
export function assertBuilt(): void {
  const bundle = join(ROOT, "dist", "cli.js");
  if (!existsSync(bundle)) throw new Error("dist/cli.js is missing: run `npm run build` first");
  if (newestMtime(join(ROOT, "src")) > statSync(bundle).mtimeMs) {
    throw new Error("dist/cli.js is older than src/: run `npm run build` first");
  }
}

/** A temporary directory for an end-to-end test, removed by `remove()`. */
export function tempDir(prefix = "petstore-e2e-"): { dir: string; remove: () => void } {
  return makeTempDir(prefix);
}

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

const LISTENING = /^listening on (http:\/\/[^\s]+)\n/m;

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
      ...baseEnv(),
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

/** The stores a server keeps its data in: the store-relevant e2e tests run on each. */
export const STORES = ["sqlite", "postgres"] as const;
export type StoreKind = (typeof STORES)[number];

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
 * (test/support/postgres-global-setup.ts).
 */
export async function freshStore(kind: StoreKind): Promise<TestStore> {
  if (kind === "postgres") {
    const database = await createTestDatabase();
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

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The child's whole environment besides PATH/HOME/TMPDIR (nothing else is inherited). */
  env?: Env;
  /** Written to stdin, then closed. */
  input?: string;
  /** spawnCli only: leave stdin open for the test to write to (`process.stdin`). */
  openStdin?: boolean;
  /** Kill the child after this long (default 20 s). */
  timeoutMs?: number;
  /** Options for node itself, before the script (`--import …`). */
  nodeArgs?: readonly string[];
}

/** Runs `node bin/petstore.js ...args` with stdout and stderr piped, until it exits. */
export async function runCli(
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliResult> {
  const child = spawnCli(args, options);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

function writeInput(stdin: Writable, input: string | undefined): void {
  stdin.on("error", () => undefined); // the CLI may exit without reading stdin
  stdin.end(input ?? "");
}

/** Whether `script` (util-linux) is available to run a command on a pseudo-terminal. */
export const HAS_SCRIPT =
  process.platform === "linux" && spawnSync("script", ["--version"]).status === 0;

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * Runs the CLI on a pseudo-terminal (under `script -qec`), as a person at a terminal would.
 * stdout and stderr both go to the terminal, so they arrive together in `output`, with CRLF
 * line ends turned back into LF.
 */
export async function runCliInTty(
  args: readonly string[],
  options: Omit<CliOptions, "input"> = {},
): Promise<{ code: number | null; output: string }> {
  assertBuilt();
  const command = [process.execPath, BIN, ...args].map(shellQuote).join(" ");
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    env: { ...baseEnv(), TERM: "xterm-256color", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(timer);
  return { code, output: output.replaceAll("\r\n", "\n") };
}

export interface FakeServer {
  /** Base URL ending in /v1. */
  url: string;
  /** Requests received so far, as "METHOD path". */
  requests: string[];
  stop(): Promise<void>;
}

/**
 * A throwaway HTTP server for behaviour the bundled server never shows (a 400 the CLI cannot
 * provoke, a 503, a server that never answers): `handle` writes each response.
 */
export async function startFakeServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<FakeServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method ?? ""} ${request.url ?? ""}`);
    handle(request, response);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** Sends a JSON response with an exact body text. */
export function replyJson(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(body);
}

export interface RecordedRun extends CliResult {
  /**
   * The sources bundled into the files of dist/ the run loaded, from esbuild's `// path`
   * markers: `src/cli.ts`, `node_modules/commander`, … (a package by its directory).
   */
  sources: string[];
}

/** Runs the CLI under a module-loading hook and reports which bundled sources it loaded. */
export async function runCliRecordingModules(
  args: readonly string[],
  options: Omit<CliOptions, "nodeArgs"> = {},
): Promise<RecordedRun> {
  const temp = tempDir();
  const log = join(temp.dir, "modules.log");
  writeFileSync(log, "");
  const result = await runCli(args, {
    ...options,
    env: { ...options.env, PETSTORE_TEST_MODULE_LOG: log },
    nodeArgs: ["--import", pathToFileURL(join(import.meta.dirname, "record-modules.js")).href],
  });
  const distFiles = readFileSync(log, "utf8")
    .split("\n")
    .filter((url) => url.startsWith(pathToFileURL(join(ROOT, "dist")).href))
    .map((url) => fileURLToPath(url));
  temp.remove();
  const sources = new Set<string>();
  for (const file of distFiles) {
    for (const [, source] of readFileSync(file, "utf8").matchAll(
      /^\/\/ ((?:src|node_modules)\/\S+)$/gm,
    )) {
      const packageDir = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source ?? "")?.[0];
      sources.add(packageDir ?? source ?? "");
    }
  }
  return { ...result, sources: [...sources].sort() };
}

export interface HoldingProxy {
  /** Base URL ending in /v1, to give the CLI instead of the server's. */
  url: string;
  /** The writes received so far (PATCH, and POST of a batch), as "METHOD path". */
  writes: string[];
  /** How many batch requests it answered 404 itself (`withoutBatchRoute`). */
  batchesRefused(): number;
  /** Resolves when `count` writes have been received (and are held). */
  writesHeld(count: number): Promise<void>;
  /** Forwards every held write, and every later one at once. */
  release(): void;
  stop(): Promise<void>;
}

export interface HoldingProxyOptions {
  /**
   * Answer `POST /v1/inventory/batch` 404 itself, as a server that implements only the spec
   * does (not held, not recorded, never forwarded).
   */
  withoutBatchRoute?: boolean;
}

/** The 404 a server without the batch route gives it (the bundled server's unknown route). */
export const NO_BATCH_ROUTE_BODY =
  '{"code":"not_found","message":"Route POST:/v1/inventory/batch not found","status":404}';

/**
 * An HTTP proxy in front of a real server that forwards GETs at once and holds each write
 * (PATCH, or POST of a batch) until `release()`: a write that stays in flight for exactly as
 * long as a test needs. With `withoutBatchRoute` it stands for a server without the batch
 * endpoint (one that implements only the spec); released at once, it just forwards.
 */
export async function startHoldingProxy(
  target: string,
  options: HoldingProxyOptions = {},
): Promise<HoldingProxy> {
  const upstream = new URL(target);
  const writes: string[] = [];
  const held: (() => void)[] = [];
  let released = false;
  let refused = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const forward = (request: IncomingMessage, body: Buffer, response: ServerResponse) => {
    const outgoing = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on("error", () => response.destroy());
    outgoing.end(body);
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const isBatch = request.method === "POST" && request.url === "/v1/inventory/batch";
      if (isBatch && options.withoutBatchRoute === true) {
        refused += 1;
        replyJson(response, 404, NO_BATCH_ROUTE_BODY);
        return;
      }
      const isWrite = request.method === "PATCH" || isBatch;
      if (isWrite) writes.push(`${request.method ?? ""} ${request.url ?? ""}`);
      if (!isWrite || released) {
        forward(request, body, response);
        return;
      }
      held.push(() => {
        forward(request, body, response);
      });
      for (const waiter of waiters.filter((w) => writes.length >= w.count)) waiter.resolve();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    writes,
    batchesRefused: () => refused,
    writesHeld: (count) =>
      writes.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    release() {
      released = true;
      for (const send of held.splice(0)) send();
    },
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

export interface SpawnedCli {
  process: ChildProcessByStdio<Writable, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr contains `text` (rejects if the CLI exits first). */
  stderrContains(text: string): Promise<void>;
  /** Resolves with the exit code (the child is killed after `timeoutMs`, default 20 s). */
  exited: Promise<number | null>;
}

/** Starts `node bin/petstore.js ...args` and leaves it running, for tests that signal it. */
export function spawnCli(args: readonly string[], options: CliOptions = {}): SpawnedCli {
  assertBuilt();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    env: { ...baseEnv(), ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  if (options.openStdin === true) child.stdin.on("error", () => undefined);
  else writeInput(child.stdin, options.input);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const exited = (once(child, "close") as Promise<[number | null]>).then(([code]) => {
    clearTimeout(timer);
    return code;
  });
  return {
    process: child,
    stdout: () => stdout,
    stderr: () => stderr,
    stderrContains: (text) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (stderr.includes(text)) resolve();
        };
        child.stderr.on("data", check);
        check();
        void exited.then(() => {
          reject(new Error(`the CLI exited before printing ${JSON.stringify(text)}:\n${stderr}`));
        });
      }),
    exited,
  };
}
