/**
 * The real server's log as an operator reads it: every line of stderr is one JSON object (what
 * `jq` needs) through a run that starts, serves, reloads its keys on SIGHUP (once refused) and
 * stops on SIGTERM, and stdout holds only the listening line; under systemd, when stderr is
 * the stream JOURNAL_STREAM names, each line is led by its syslog priority; --trust-proxy.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, fstatSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keysFileLine } from "../../src/api/api-keys.js";
import { eventually } from "../support/eventually.js";
import { tempDir } from "../support/temp-dir.js";
import { cannotMountTmpfs, fillFileSystem, mountTmpfs } from "../support/tmpfs.js";
import { assertBuilt, BIN } from "./support/binary.js";
import { runCli } from "./support/cli.js";

const KEY = "log-test-key-5e1a90";
const AUTH = { authorization: `Bearer ${KEY}` };

let temp: { dir: string; remove(): void };
let keysPath: string;
let logPath: string;
beforeEach(() => {
  assertBuilt();
  temp = tempDir();
  keysPath = join(temp.dir, "keys");
  logPath = join(temp.dir, "petstore.log");
  writeFileSync(keysPath, `${keysFileLine("till-1", "write", KEY)}\n`);
});
afterEach(() => {
  temp.remove();
});

interface Served {
  url: string;
  stdout(): string;
  /** The log file as written so far. */
  log(): string;
  signal(signal: NodeJS.Signals): void;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** `petstore serve` with its stderr appended to the log file, as `2>>petstore.log` does. */
async function serve(
  args: readonly string[],
  journal: "stderr" | "elsewhere" | "none" = "none",
  nodeArgs: readonly string[] = [],
): Promise<Served> {
  const fd = openSync(logPath, "a");
  const stat = fstatSync(fd, { bigint: true });
  const journalStream =
    journal === "stderr"
      ? `${stat.dev}:${stat.ino}`
      : journal === "elsewhere"
        ? `${stat.dev}:${stat.ino + 1n}`
        : undefined;
  const child = spawn(
    process.execPath,
    [...nodeArgs, BIN, "serve", "--port", "0", "--db", join(temp.dir, "petstore.db"), ...args],
    {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        ...(journalStream === undefined ? {} : { JOURNAL_STREAM: journalStream }),
      },
      stdio: ["ignore", "pipe", fd],
    },
  );
  closeSync(fd);
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const log = () => readFileSync(logPath, "utf8");
  await eventually(
    "the listening line, or the server's exit",
    () => /^listening on /.test(out) || child.exitCode !== null,
  );
  const url = /^listening on (\S+)\n/.exec(out)?.[1];
  if (url === undefined) throw new Error(`no listening line; log:\n${log()}`);
  return { url, stdout: () => out, log, signal: (signal) => child.kill(signal), exited };
}

/** The log's lines, each parsed as `jq` would; fails naming a line that is not JSON. */
function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${line}`);
      }
    });
}

/** Sends SIGHUP and waits for the reload's log line. */
async function hangUp(server: Served, message: RegExp): Promise<void> {
  server.signal("SIGHUP");
  await eventually(`a log line matching ${String(message)}`, () => message.test(server.log()));
}

describe("the server's log", () => {
  it("is one JSON object a line from start to exit; stdout is the listening line alone", async () => {
    const server = await serve(["--demo", "--api-keys-file", keysPath]);
    expect((await fetch(`${server.url}/inventory`, { headers: AUTH })).status).toBe(200);
    expect((await fetch(`${server.url}/inventory/abc`, { headers: AUTH })).status).toBe(400);
    expect((await fetch(`${server.url}/inventory`)).status).toBe(401);
    writeFileSync(keysPath, "till-1 write not-a-digest\n");
    await hangUp(server, /keys file refused/);
    writeFileSync(keysPath, `${keysFileLine("till-1", "write", KEY)}\n`);
    await hangUp(server, /keys reloaded/);
    server.signal("SIGTERM");
    expect((await server.exited)[0]).toBe(0);

    expect(server.stdout()).toBe(`listening on ${server.url}\n`);
    const lines = jsonLines(server.log());
    const messages = lines.map((line) => line.msg);
    expect(messages.filter((msg) => msg === "request")).toHaveLength(3);
    expect(messages).toContainEqual(expect.stringMatching(/^keys file refused, .*keys:1/));
    expect(messages).toContain("received SIGTERM, closing");
    expect(messages.at(-1)).toBe("closed");
    expect(lines.find((line) => line.msg === "received SIGTERM, closing")).toMatchObject({
      level: 30,
      signal: "SIGTERM",
    });
    for (const line of lines) expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    expect(server.log()).not.toContain(KEY);
  });

  it("leads each line with its syslog priority when stderr is JOURNAL_STREAM's", async () => {
    const first = await serve(["--demo", "--api-keys-file", keysPath]);
    first.signal("SIGTERM");
    await first.exited;
    writeFileSync(logPath, "");
    writeFileSync(
      join(temp.dir, "pets.json"),
      '[{"petId":1,"name":"Rex","status":"available","quantity":1}]',
    );

    const server = await serve(
      ["--api-keys-file", keysPath, "--seed", join(temp.dir, "pets.json")],
      "stderr",
    );
    expect((await fetch(`${server.url}/inventory`, { headers: AUTH })).status).toBe(200);
    writeFileSync(keysPath, "till-1 write not-a-digest\n");
    await hangUp(server, /keys file refused/);
    server.signal("SIGTERM");
    expect((await server.exited)[0]).toBe(0);

    const priorities = new Map<number, number>([
      [60, 2],
      [50, 3],
      [40, 4],
      [30, 6],
      [20, 7],
      [10, 7],
    ]);
    const lines = server
      .log()
      .split("\n")
      .filter((line) => line !== "");
    const seen = new Set<string>();
    for (const line of lines) {
      const match = /^<(\d)>(\{.*\})$/.exec(line);
      expect(match, line).not.toBeNull();
      const { level } = JSON.parse(match?.[2] ?? "") as { level: number };
      expect(Number(match?.[1]), line).toBe(priorities.get(level));
      seen.add(match?.[1] ?? "");
    }
    // The seed ignored is a warning, the refused keys file an error, the rest information.
    expect([...seen].sort()).toEqual(["3", "4", "6"]);
    expect(server.stdout()).toBe(`listening on ${server.url}\n`);
  });

  it("leaves lines bare when JOURNAL_STREAM names another stream (stderr redirected)", async () => {
    const server = await serve(["--api-keys-file", keysPath], "elsewhere");
    server.signal("SIGTERM");
    expect((await server.exited)[0]).toBe(0);
    expect(jsonLines(server.log()).at(-1)?.msg).toBe("closed");
  });

  it("refuses a PETSTORE_LOG_LEVEL it does not know: exit 2 naming the levels", async () => {
    const result = await runCli(
      ["serve", "--port", "0", "--db", join(temp.dir, "petstore.db"), "--api-keys-file", keysPath],
      { env: { PETSTORE_LOG_LEVEL: "loud" } },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'PETSTORE_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, not "loud"',
    );
  });

  it("says a crash in one fatal line (<2> in the journal), and exits 1", async () => {
    // A bug, on demand: an error thrown where nothing catches it.
    const bug = join(temp.dir, "bug.mjs");
    writeFileSync(bug, 'process.on("SIGUSR2", () => { throw new Error("a bug"); });\n');
    const server = await serve(["--api-keys-file", keysPath], "stderr", ["--import", bug]);
    server.signal("SIGUSR2");
    expect((await server.exited)[0]).toBe(1);
    const last = server.log().trimEnd().split("\n").at(-1) ?? "";
    expect(last.slice(0, 3)).toBe("<2>");
    expect(JSON.parse(last.slice(3))).toMatchObject({
      level: 60,
      msg: "uncaught error, exiting: a bug",
      err: { type: "Error", message: "a bug" },
    });
  });
});

/**
 * `petstore serve --demo` on a SQLite file in the test's directory, its stderr `stderr` (a pipe
 * the test may close, or a file descriptor), waited for until it listens.
 */
async function serveLoggingTo(stderr: "pipe" | number) {
  const child = spawn(
    process.execPath,
    [BIN, "serve", "--port", "0", "--db", join(temp.dir, "petstore.db"), "--demo"].concat([
      "--api-keys-file",
      keysPath,
    ]),
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
      stdio: ["ignore", "pipe", stderr],
    },
  );
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  await eventually("the listening line", () => /^listening on /.test(out));
  return { child, url: /^listening on (\S+)\n/.exec(out)?.[1] ?? "", exited };
}

/** SIGTERM, and the exit it ends with (SIGKILL after 10 s: a server that hangs fails the test). */
async function terminate(server: Awaited<ReturnType<typeof serveLoggingTo>>) {
  server.child.kill("SIGTERM");
  const timer = setTimeout(() => server.child.kill("SIGKILL"), 10_000);
  try {
    return await server.exited;
  } finally {
    clearTimeout(timer);
  }
}

describe("a log that cannot be written", () => {
  it("whose reader went away (`| head -1`, a logger that died): the server serves on, and SIGTERM ends it with 0", async () => {
    const server = await serveLoggingTo("pipe");
    // The reader of the log goes away: every write to it from now on fails with EPIPE.
    server.child.stderr?.destroy();
    expect((await fetch(`${server.url.replace(/\/v1$/, "")}/livez`)).status).toBe(200);
    expect((await fetch(`${server.url}/inventory`, { headers: AUTH })).status).toBe(200);
    expect(await terminate(server)).toEqual([0, null]);
  });
});

const whyNoTmpfs = cannotMountTmpfs();

describe.skipIf(whyNoTmpfs !== undefined)(
  whyNoTmpfs === undefined
    ? "a log on a full disk (a tmpfs mounted by the test)"
    : `a log on a full disk: skipped, cannot mount a tmpfs (${whyNoTmpfs})`,
  () => {
    it("keeps the server answering, reads and writes alike, and SIGTERM ends it with 0", async () => {
      const tmpfs = mountTmpfs("1m");
      let server: Awaited<ReturnType<typeof serveLoggingTo>> | undefined;
      try {
        // The log on the full disk; the store on another (the store's own full disk is
        // storage-full.test.ts's).
        const log = openSync(join(tmpfs.dir, "petstore.log"), "a");
        try {
          server = await serveLoggingTo(log);
        } finally {
          closeSync(log);
        }
        const { url } = server;
        fillFileSystem(join(tmpfs.dir, "filler"));
        // Enough requests that their log lines are written (4 KiB at a time) many times over.
        for (let i = 0; i < 100; i += 1) {
          const response = await fetch(`${url}/inventory/1`, {
            method: i % 2 === 0 ? "GET" : "PATCH",
            headers: { ...AUTH, "content-type": "application/json" },
            ...(i % 2 === 0 ? {} : { body: JSON.stringify({ quantity: i }) }),
            signal: AbortSignal.timeout(5_000),
          });
          expect(response.status).toBe(200);
        }
        expect((await fetch(`${url.replace(/\/v1$/, "")}/livez`)).status).toBe(200);
        expect(await terminate(server)).toEqual([0, null]);
      } finally {
        // A server that hung holds its log open: the file system could not be unmounted.
        const { child } = server ?? {};
        if (child !== undefined && child.exitCode === null && child.signalCode === null) {
          const gone = once(child, "exit");
          child.kill("SIGKILL");
          await gone;
        }
        tmpfs.unmount();
      }
    });
  },
);

describe("--trust-proxy", () => {
  const forwarded = { ...AUTH, "x-forwarded-for": "203.0.113.9" };

  async function loggedClient(args: readonly string[]): Promise<unknown> {
    writeFileSync(logPath, "");
    const server = await serve(["--api-keys-file", keysPath, ...args]);
    expect((await fetch(`${server.url}/inventory`, { headers: forwarded })).status).toBe(200);
    server.signal("SIGTERM");
    await server.exited;
    return jsonLines(server.log()).find((line) => line.msg === "request")?.client;
  }

  it("logs the forwarded client of a request from a trusted proxy, else the socket's address", async () => {
    expect(await loggedClient(["--trust-proxy", "127.0.0.1,::1"])).toBe("203.0.113.9");
    expect(await loggedClient(["--trust-proxy", "10.0.0.0/8"])).toBe("127.0.0.1");
    expect(await loggedClient([])).toBe("127.0.0.1");
  });

  it("refuses an address it cannot read: exit 2 naming it, nothing started", async () => {
    const result = await runCli([
      "serve",
      "--port",
      "0",
      "--db",
      join(temp.dir, "petstore.db"),
      "--api-keys-file",
      keysPath,
      "--trust-proxy",
      "127.0.0.1,10.0.0.0/33",
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      '--trust-proxy: "10.0.0.0/33" is not an IP address or a CIDR range',
    );
  });
});
