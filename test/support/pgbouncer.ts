/**
 * A throwaway PgBouncer in front of the run's PostgreSQL (Debian's `pgbouncer`, as CI installs
 * it): on 127.0.0.1 at a free port, in transaction or session mode, every database of the
 * server reachable through it (a `*` entry), clients and PgBouncer authenticated with SCRAM.
 * `ignore_startup_parameters` is left at its default: what the store sends at start-up must be
 * what any PgBouncer takes. Its files are in a temporary directory, removed when it stops; its
 * log is shown only when it fails to start.
 */
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { freePort } from "./free-port.js";
import {
  findSystemTool,
  runSystemTool,
  systemToolMissing,
  type SystemTool,
} from "./system-tool.js";

export type PoolMode = "transaction" | "session";

const PGBOUNCER: SystemTool = {
  name: "pgbouncer",
  shownAs: "PgBouncer",
  debianPath: "/usr/sbin/pgbouncer",
  variable: "PETSTORE_TEST_PGBOUNCER",
};

/** The PgBouncer executable on this machine, or undefined. */
export function findPgBouncer(): string | undefined {
  return findSystemTool(PGBOUNCER);
}

/** Why no PgBouncer can be started here (the pooled suites then skip, saying so), or undefined. */
export function pgBouncerMissing(): string | undefined {
  return systemToolMissing(PGBOUNCER);
}

/** The server PgBouncer connects to, and the user it logs in as (clients use the same). */
export interface PgBouncerTarget {
  /** A host name, or the directory holding the server's socket. */
  host: string;
  port: number;
  user: string;
  password: string;
}

export interface PgBouncerOptions {
  /**
   * query_wait_timeout: how long a client waits for a server connection before PgBouncer
   * fails its query (30 s). PostgreSQL gone, the first query waits this long; those after
   * it fail at once until a login succeeds again.
   */
  queryWaitTimeoutS?: number;
  /** server_login_retry: how long after a failed login PgBouncer tries again (1 s). */
  serverLoginRetryS?: number;
}

export interface RunningPgBouncer {
  mode: PoolMode;
  port: number;
  /** postgres://… URL of the server's `postgres` database through PgBouncer. */
  url: string;
  /** The directory of its files (settings, auth file, log), removed by stop(). */
  dir: string;
  /**
   * Stops it (SIGTERM, PgBouncer 1.18's immediate shutdown; SIGKILL after 5 s), waits for it to
   * exit, removes its files.
   */
  stop(): Promise<void>;
}

/** The server's host, port, user and password, read from a postgres://… URL. */
export function targetOf(url: string): PgBouncerTarget {
  const client = new pg.Client({ connectionString: url });
  return {
    host: client.host,
    port: client.port,
    user: client.user ?? "postgres",
    password: typeof client.password === "string" ? client.password : "",
  };
}

/** The uid and gid of the `postgres` system user (root runs PgBouncer as it). */
function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string) => {
    const result = spawnSync("id", [flag, "postgres"]);
    if (result.status !== 0) {
      throw new Error(
        `PgBouncer refuses to run as root, and there is no postgres user to run it as: ${result.stderr.toString()}`,
      );
    }
    return Number(result.stdout.toString().trim());
  };
  return { uid: id("-u"), gid: id("-g") };
}

/** A value for pgbouncer.ini or its auth file, quoted as they take it. */
const quoted = (value: string) => `"${value.replaceAll('"', '""')}"`;

function configFile(
  dir: string,
  target: PgBouncerTarget,
  mode: PoolMode,
  port: number,
  options: PgBouncerOptions,
): string {
  return [
    "[databases]",
    // Every database of the server, by the name the client asks for: tests make their own.
    `* = host=${target.host} port=${target.port}`,
    "",
    "[pgbouncer]",
    "listen_addr = 127.0.0.1",
    `listen_port = ${port}`,
    // No socket in /tmp to clash with another PgBouncer's.
    "unix_socket_dir =",
    `pool_mode = ${mode}`,
    // SCRAM from clients; the auth file holds the password itself, so PgBouncer can log in
    // to a server that asks for SCRAM too.
    "auth_type = scram-sha-256",
    `auth_file = ${join(dir, "users.txt")}`,
    `logfile = ${join(dir, "pgbouncer.log")}`,
    "log_connections = 0",
    "log_disconnections = 0",
    // Room for every suite's pools and concurrent clients (two server instances of 10, 20
    // client processes); PostgreSQL's own limit stays the bound that matters.
    "max_client_conn = 500",
    "default_pool_size = 30",
    "reserve_pool_size = 5",
    // A server that went away (a test stopping PostgreSQL) is tried again each second, not
    // after 15; a client that waits for a connection longer than 30 s is told so.
    `server_login_retry = ${options.serverLoginRetryS ?? 1}`,
    `query_wait_timeout = ${options.queryWaitTimeoutS ?? 30}`,
    "",
  ].join("\n");
}

/**
 * Starts PgBouncer in `mode` in front of `target` and resolves once a query through it has
 * answered. Rejects, with PgBouncer's log, when it is not installed, exits or does not answer.
 */
export async function startPgBouncer(
  target: PgBouncerTarget,
  mode: PoolMode,
  options: PgBouncerOptions = {},
): Promise<RunningPgBouncer> {
  const executable = findPgBouncer();
  if (executable === undefined) throw new Error(pgBouncerMissing());
  const failures: string[] = [];
  // A port found free may be taken before PgBouncer binds it: then another one.
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    try {
      return await startOn(executable, target, mode, port, options);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      failures.push(message);
      if (!/Address already in use/i.test(message)) break;
    }
  }
  throw new Error(failures.join("\n\n"));
}

async function startOn(
  executable: string,
  target: PgBouncerTarget,
  mode: PoolMode,
  port: number,
  options: PgBouncerOptions,
): Promise<RunningPgBouncer> {
  const dir = mkdtempSync(join(tmpdir(), `petstore-pgbouncer-${mode}-`));
  const ini = join(dir, "pgbouncer.ini");
  writeFileSync(ini, configFile(dir, target, mode, port, options), { mode: 0o600 });
  writeFileSync(join(dir, "users.txt"), `${quoted(target.user)} ${quoted(target.password)}\n`, {
    mode: 0o600,
  });
  // PgBouncer refuses to run as root: as root, it runs as the postgres user, who owns its files.
  const ids = process.getuid?.() === 0 ? postgresIds() : undefined;
  if (ids !== undefined) {
    for (const path of [dir, ini, join(dir, "users.txt")]) chownSync(path, ids.uid, ids.gid);
  }
  const pgbouncer = runSystemTool(
    executable,
    [ini],
    ids === undefined ? {} : { uid: ids.uid, gid: ids.gid },
  );

  const url = `postgres://${encodeURIComponent(target.user)}:${encodeURIComponent(target.password)}@127.0.0.1:${port}/postgres`;
  const running: RunningPgBouncer = {
    mode,
    port,
    url,
    dir,
    async stop() {
      await pgbouncer.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const log = () => {
    const file = join(dir, "pgbouncer.log");
    const logged = existsSync(file) ? readFileSync(file, "utf8") : "";
    return (
      [pgbouncer.output(), logged].filter((text) => text.trim() !== "").join("\n") || "(no output)"
    );
  };
  const deadline = performance.now() + 10_000;
  let lastError = "";
  while (pgbouncer.exit() === undefined) {
    try {
      await queryOnce(url);
      return running;
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    if (performance.now() > deadline) break;
    await sleep(50);
  }
  const exit = pgbouncer.exit();
  const why =
    exit === undefined
      ? `answered no query in 10 s (last: ${lastError})`
      : `${exit} before answering a query`;
  const shown = log();
  await running.stop();
  throw new Error(
    `PgBouncer (${mode} mode, 127.0.0.1:${port}, in front of ${target.host}:${target.port}) ${why}; its log:\n${shown}`,
  );
}

/** One `SELECT 1` through a connection of its own. */
async function queryOnce(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("SELECT 1");
  } finally {
    await client.end().catch(() => undefined);
  }
}
