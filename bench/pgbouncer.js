// A PgBouncer in transaction mode in front of the benchmark's cluster, as hosted PostgreSQL
// puts one (Debian's `pgbouncer`; the tests start theirs with test/support/pgbouncer.ts, this
// is the same set-up in plain JavaScript for the benchmark). On 127.0.0.1 at a free port,
// pinned like PostgreSQL when `cores` is given, run as the postgres user when we are root.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { accessSync, chownSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";

const EXECUTABLE = "/usr/sbin/pgbouncer";

/** Whether Debian's PgBouncer is installed (the benchmark's PgBouncer row needs it). */
export function hasPgBouncer() {
  try {
    accessSync(EXECUTABLE, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

function postgresIds() {
  const id = (flag) => Number(spawnSync("id", [flag, "postgres"]).stdout.toString().trim());
  return { uid: id("-u"), gid: id("-g") };
}

/**
 * Starts PgBouncer in `mode` in front of the server `url` names (any database of it, by the
 * name a client asks for). Resolves { url(database), stop() } once a query through it answers.
 */
export async function startBenchPgBouncer(url, { mode = "transaction", cores } = {}) {
  const target = new pg.Client({ connectionString: url });
  const dir = mkdtempSync(join(os.tmpdir(), "petstore-bench-pgbouncer-"));
  const port = await freePort();
  const ini = join(dir, "pgbouncer.ini");
  const users = join(dir, "users.txt");
  writeFileSync(
    ini,
    [
      "[databases]",
      `* = host=${target.host} port=${target.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      `pool_mode = ${mode}`,
      "auth_type = scram-sha-256",
      `auth_file = ${users}`,
      `logfile = ${join(dir, "pgbouncer.log")}`,
      "max_client_conn = 500",
      "default_pool_size = 20",
      "",
    ].join("\n"),
  );
  writeFileSync(users, `"${target.user}" "${target.password}"\n`);
  const ids = process.getuid?.() === 0 ? postgresIds() : undefined;
  if (ids) for (const path of [dir, ini, users]) chownSync(path, ids.uid, ids.gid);
  const [command, args] =
    cores === undefined ? [EXECUTABLE, [ini]] : ["taskset", ["-c", cores, EXECUTABLE, ini]];
  const child = spawn(command, args, { stdio: "ignore", ...(ids ?? {}) });
  const through = (database) =>
    `postgres://${target.user}:${encodeURIComponent(target.password)}@127.0.0.1:${port}/${database}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 200; attempt++) {
    const client = new pg.Client({ connectionString: through("postgres") });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      return { url: through, stop };
    } catch {
      await sleep(50);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  await stop();
  throw new Error(`PgBouncer did not answer on 127.0.0.1:${port} in 10 s`);
}
