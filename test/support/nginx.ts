/**
 * A throwaway nginx (Debian's `nginx`, as CI's .ci/run installs it) serving one site file, as
 * a guide gives it (a `server { … }` block, what goes in /etc/nginx/sites-available/): the
 * main configuration around it is this file's, with the pid file, the temporary paths and the
 * error log (nginx's stderr, shown only when it fails to start) in a directory of its own, no
 * access log, and one worker. As root its workers run as root too (Debian's default user,
 * www-data, could not read a test's temporary directory). The site file is taken as it is:
 * its ports and file paths are the caller's to choose.
 */
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  findSystemTool,
  runSystemTool,
  systemToolMissing,
  type SystemTool,
} from "./system-tool.js";

const NGINX: SystemTool = {
  name: "nginx",
  shownAs: "nginx",
  debianPath: "/usr/sbin/nginx",
  variable: "PETSTORE_TEST_NGINX",
};

/** The nginx executable on this machine, or undefined. */
export function findNginx(): string | undefined {
  return findSystemTool(NGINX);
}

/** Why no nginx can be started here (its tests then skip, saying so), or undefined. */
export function nginxMissing(): string | undefined {
  return systemToolMissing(NGINX);
}

export interface RunningNginx {
  /** Stops it (SIGTERM, then SIGKILL after 5 s), waits for it to exit, removes its files. */
  stop(): Promise<void>;
}

/** The main configuration: everything nginx writes goes under `dir`; `site` is included as is. */
function mainConfig(dir: string, site: string): string {
  const asRoot = process.getuid?.() === 0;
  return [
    "# test/support/nginx.ts: a throwaway nginx around one site file",
    ...(asRoot ? ["user root root;"] : []),
    "worker_processes 1;",
    `pid ${join(dir, "nginx.pid")};`,
    "error_log stderr warn;",
    "events {",
    "    worker_connections 64;",
    "}",
    "http {",
    "    access_log off;",
    `    client_body_temp_path ${join(dir, "client_body")};`,
    `    proxy_temp_path ${join(dir, "proxy")};`,
    `    fastcgi_temp_path ${join(dir, "fastcgi")};`,
    `    uwsgi_temp_path ${join(dir, "uwsgi")};`,
    `    scgi_temp_path ${join(dir, "scgi")};`,
    `    include ${site};`,
    "}",
    "",
  ].join("\n");
}

/** Whether something accepts TCP connections on 127.0.0.1:`port` now. */
async function accepts(port: number): Promise<boolean> {
  const socket = connect(port, "127.0.0.1");
  try {
    await once(socket, "connect");
    return true;
  } catch {
    return false;
  } finally {
    socket.destroy();
  }
}

/**
 * Starts nginx serving `site` (the text of a site file) and resolves once it listens: its pid
 * file written (nginx writes it after binding every port) and `port` (one `site` listens on,
 * on 127.0.0.1) accepting. nginx itself tries a port that another process is still closing for
 * 2.5 s. Rejects, with nginx's output, when it is not installed, exits or does not listen
 * within 10 s.
 */
export async function startNginx(site: string, port: number): Promise<RunningNginx> {
  const executable = findNginx();
  if (executable === undefined) throw new Error(nginxMissing());
  const dir = mkdtempSync(join(tmpdir(), "petstore-nginx-"));
  const siteFile = join(dir, "site.conf");
  const configFile = join(dir, "nginx.conf");
  writeFileSync(siteFile, site);
  writeFileSync(configFile, mainConfig(dir, siteFile));
  // -e: the error log before the configuration is read (Debian's default is stderr, not all builds').
  const nginx = runSystemTool(executable, [
    "-p",
    dir,
    "-c",
    configFile,
    "-e",
    "stderr",
    "-g",
    "daemon off;",
  ]);
  const running: RunningNginx = {
    async stop() {
      await nginx.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  const pidFile = join(dir, "nginx.pid");
  const deadline = performance.now() + 10_000;
  while (nginx.exit() === undefined && performance.now() < deadline) {
    if (existsSync(pidFile) && (await accepts(port))) return running;
    await sleep(50);
  }
  const why = nginx.exit() ?? "did not listen within 10 s";
  await running.stop();
  throw new Error(
    `nginx ${why} (port ${port}):\n${nginx.output().trim() || "(no output)"}\n--- its site file:\n${site}`,
  );
}
