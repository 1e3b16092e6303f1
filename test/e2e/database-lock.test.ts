/**
 * Another real process holds the SQLite write lock (as a backup, the `sqlite3` shell or a
 * second `serve` on the same file would) while the real server runs: the server keeps
 * answering, a waiting PATCH commits once the lock is gone or answers 503 with Retry-After
 * after PETSTORE_LOCK_TIMEOUT_MS, and the file afterwards holds what the answers said. What
 * happened when is shown by the order of events (and the server's own log), not by a
 * stopwatch: the exact time-out rule is proved on an injected clock in sqlite/store.test.ts.
 */
import Database from "better-sqlite3";
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { parseRawResponse, rawConnection, type RawConnection } from "../server/raw-http.js";
import { eventually } from "../support/eventually.js";
import { tempDir } from "../support/temp-dir.js";
import { ROOT } from "./support/binary.js";
import { runCli, spawnCli } from "./support/cli.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

const auth = { authorization: `Bearer ${API_KEY}` };
const PETS = [1, 2, 3].map((petId) => ({
  petId,
  name: `Pet ${petId}`,
  status: "available" as const,
  quantity: 0,
}));
/** The store's lock time-out when none is configured (PETSTORE_LOCK_TIMEOUT_MS). */
const DEFAULT_LOCK_TIMEOUT_MS = 5000;

interface Locker {
  /** Commits the locking transaction (releasing the lock) and waits for the process to exit. */
  release(): Promise<void>;
  process: ChildProcessByStdio<Writable, Readable, Readable>;
}

/**
 * Spawns a second real process that opens `dbPath` with better-sqlite3, takes the write lock
 * with BEGIN IMMEDIATE and holds it until told to release it (or for 15 s at most).
 */
async function holdWriteLock(dbPath: string): Promise<Locker> {
  const script = `
    const db = new (require("better-sqlite3"))(${JSON.stringify(dbPath)});
    db.exec("BEGIN IMMEDIATE");
    process.stdout.write("locked\\n");
    const release = () => { db.exec("COMMIT"); db.close(); process.exit(0); };
    process.stdin.on("data", release);
    setTimeout(release, 15000);
  `;
  const child = spawn(process.execPath, ["-e", script], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = once(child, "exit");
  await new Promise<void>((resolve, reject) => {
    child.stdout.once("data", () => {
      resolve();
    });
    void exited.then(() => {
      reject(new Error(`the locking process exited early: ${err}`));
    });
  });
  return {
    process: child,
    async release() {
      if (child.exitCode === null) child.stdin.end("release\n");
      await exited;
    },
  };
}

/** The order of a test's events: a counter, not a clock. */
interface Order {
  step: number;
}

interface Poll {
  what: string;
  status: number;
  /** The steps at which it was sent and answered. */
  sent: number;
  answered: number;
}

/**
 * Polls /healthz and GET /v1/inventory one after the other, every 20 ms, until stopped;
 * `polls` grows as they are answered.
 */
function pollWhileLocked(url: string, order: Order): { polls: Poll[]; stop(): Promise<Poll[]> } {
  const polls: Poll[] = [];
  const stopped = new AbortController();
  const poll = async (what: string, target: string, headers: Record<string, string>) => {
    const sent = ++order.step;
    const response = await fetch(target, { headers });
    await response.text();
    polls.push({ what, status: response.status, sent, answered: ++order.step });
  };
  const loop = (async () => {
    while (!stopped.signal.aborted) {
      await poll("/healthz", `${url.replace(/\/v1$/, "")}/healthz`, {});
      await poll("GET /v1/inventory", `${url}/inventory`, auth);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    polls,
    async stop() {
      stopped.abort();
      await loop;
      return polls;
    },
  };
}

const CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";

/**
 * A PATCH on a connection of its own, its body sent once the server's 100 Continue says it
 * has taken the request; resolves once the body is written.
 */
async function patchTaken(port: number, petId: number, quantity: number): Promise<RawConnection> {
  const body = JSON.stringify({ quantity });
  const connection = rawConnection(port);
  connection.socket.write(
    `PATCH /v1/inventory/${petId} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${API_KEY}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
      `Expect: 100-continue\r\n\r\n`,
  );
  await eventually(`100 Continue to PATCH ${petId}`, () => connection.received() === CONTINUE);
  await new Promise<void>((resolve, reject) => {
    connection.socket.write(body, (error) => {
      if (error) reject(error);
      else resolve();
    });
  });
  return connection;
}

/** The answer after the 100 Continue on `connection`, once it is whole. */
async function answerTo(connection: RawConnection) {
  const answer = () => parseRawResponse(connection.received().slice(CONTINUE.length), false);
  await eventually("a PATCH's answer", () => answer() !== undefined);
  connection.socket.destroy();
  return answer();
}

const setQuantity = (url: string, petId: number, quantity: number) =>
  fetch(`${url}/inventory/${petId}`, {
    method: "PATCH",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ quantity }),
  });

/** The quantities in the database file itself, read by a connection of this process. */
function quantitiesInFile(dbPath: string): number[] {
  const db = new Database(dbPath, { readonly: true });
  const rows = db.prepare<[], number>("SELECT quantity FROM pets ORDER BY id").pluck().all();
  db.close();
  return rows;
}

let temp: ReturnType<typeof tempDir>;
let servers: RunningServer[] = [];
let lockers: Locker[] = [];
afterEach(async () => {
  await Promise.all(lockers.map((locker) => locker.release()));
  await Promise.all(servers.map((server) => server.stop("SIGKILL")));
  lockers = [];
  servers = [];
  temp.remove();
});

async function start(lockTimeoutMs: number, args: readonly string[] = []) {
  temp = tempDir();
  const dbPath = join(temp.dir, "petstore.db");
  const server = await startServer({
    seed: PETS,
    dbPath,
    args,
    env: { PETSTORE_LOCK_TIMEOUT_MS: String(lockTimeoutMs) },
  });
  servers.push(server);
  return server;
}

async function lock(dbPath: string) {
  const locker = await holdWriteLock(dbPath);
  lockers.push(locker);
  return locker;
}

describe("another process holds the database's write lock", () => {
  it("keeps /healthz and GETs answering; PATCHes answer 503 after the time-out or commit once it is released", async () => {
    const server = await start(1500);
    // A first request pays for the connection; the polls below reuse it.
    expect((await fetch(`${server.url}/inventory`, { headers: auth })).status).toBe(200);

    const locker = await lock(server.dbPath);
    const order: Order = { step: 0 };
    const polling = pollWhileLocked(server.url, order);

    const refusedSent = ++order.step;
    const refused = await setQuantity(server.url, 1, 41);
    const refusedAt = ++order.step;
    // Refused while the lock is still held: it stopped waiting by itself.
    expect(locker.process.exitCode).toBeNull();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await refused.json()).toEqual({
      code: "unavailable",
      message: "the database is locked by another process; nothing was changed, retry later",
      status: 503,
    });
    // While it waited, the server went on answering: the lock blocks no reader and not the
    // event loop (a blocking wait once froze it for 9.5 s, and no poll was answered).
    const meanwhile = polling.polls.filter(
      ({ sent, answered }) => sent > refusedSent && answered < refusedAt,
    );
    expect(meanwhile.filter(({ what }) => what === "/healthz").length).toBeGreaterThanOrEqual(5);
    expect(meanwhile.filter(({ what }) => what === "GET /v1/inventory").length).toBeGreaterThan(5);

    // Three PATCHes wait together (this took 29.6 s of a frozen server). Each was taken (its
    // 100 Continue) and its body written; polls sent after that are answered while they are
    // not: they wait for the lock, which then goes, well within their 1.5 s.
    const waiting = await Promise.all([
      patchTaken(server.port, 1, 11),
      patchTaken(server.port, 2, 12),
      patchTaken(server.port, 3, 13),
    ]);
    const bodiesSent = ++order.step;
    await eventually(
      "two polls sent after the PATCHes' bodies, answered",
      () => polling.polls.filter(({ sent }) => sent > bodiesSent).length >= 2,
    );
    expect(waiting.map((connection) => connection.received())).toEqual([
      CONTINUE,
      CONTINUE,
      CONTINUE,
    ]);
    await locker.release();
    const committed = await Promise.all(waiting.map(answerTo));
    expect(committed.map((answer) => answer?.status)).toEqual([200, 200, 200]);
    expect(committed.map((answer) => JSON.parse(answer?.body ?? "") as unknown)).toEqual([
      { petId: 1, quantity: 11, status: "available" },
      { petId: 2, quantity: 12, status: "available" },
      { petId: 3, quantity: 13, status: "available" },
    ]);
    const polls = await polling.stop();
    expect(polls.filter((poll) => poll.status !== 200)).toEqual([]);

    // What the answers said: the refused write is nowhere, the committed ones are on disk.
    expect(
      JSON.parse(await (await fetch(`${server.url}/inventory`, { headers: auth })).text()),
    ).toEqual([
      { petId: 1, quantity: 11, status: "available" },
      { petId: 2, quantity: 12, status: "available" },
      { petId: 3, quantity: 13, status: "available" },
    ]);
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(quantitiesInFile(server.dbPath)).toEqual([11, 12, 13]);

    // The refused write is a handled condition: a warning saying what was answered, without a
    // stack, and nothing at error level.
    const logged = server
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map(
        (line) =>
          JSON.parse(line) as {
            level: number;
            msg?: string;
            method?: string;
            status?: number;
            latencyMs?: number;
          },
      );
    expect(logged.filter((line) => line.level >= 50)).toEqual([]);
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: "request refused",
        status: 503,
        code: "unavailable",
        reason: "the database is locked by another process; nothing was changed, retry later",
      }),
    );
    // The server's own record of the refused PATCH: it waited the whole configured time-out
    // (1.5 s), not the 5 s it waits when none is configured.
    const refusedLine = logged.find(
      (line) => line.msg === "request" && line.method === "PATCH" && line.status === 503,
    );
    expect(refusedLine?.latencyMs).toBeGreaterThanOrEqual(1500);
    expect(refusedLine?.latencyMs).toBeLessThan(DEFAULT_LOCK_TIMEOUT_MS);
    expect(server.stderr()).not.toMatch(/\n\s+at /);
  });

  it("lets `petstore inventory set` succeed by retrying the 503 after Retry-After", async () => {
    const server = await start(300);
    const locker = await lock(server.dbPath);
    const cli = spawnCli(["inventory", "set", "2", "7", "--json", "--verbose"], {
      env: { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: API_KEY },
    });
    // The first attempt's 503 (after 0.3 s) is in the trace; the retry comes a second later.
    await eventually("the first attempt's 503", () => /^< 503 /m.test(cli.stderr()));
    await locker.release();
    expect(await cli.exited).toBe(0);
    expect(JSON.parse(cli.stdout())).toEqual({ petId: 2, quantity: 7, status: "available" });
    expect(cli.stderr()).toMatch(/^\* retrying in \d+ ms \(attempt 2\) after: /m);
    expect(quantitiesInFile(server.dbPath)).toEqual([0, 7, 0]);
  });

  it.each([
    // SQLite refuses at once here: waiting for this lock could deadlock.
    ["opening a new file (WAL mode and migrations need the lock)", false],
    ["seeding an empty, migrated database", true],
  ])(
    "fails to start with exit 3, naming the lock, when it is held while %s",
    async (_what, migrated) => {
      temp = tempDir();
      const dbPath = join(temp.dir, "petstore.db");
      const seed = join(temp.dir, "pets.json");
      writeFileSync(seed, JSON.stringify(PETS));
      if (migrated) {
        const empty = await startServer({ dbPath });
        expect(await empty.stop("SIGTERM")).toBe(0);
      }
      const locker = await lock(dbPath);
      // It gives up by itself; the CLI's time-out only bounds a failure.
      const result = await runCli(["serve", "--port", "0", "--db", dbPath, "--seed", seed], {
        env: { PETSTORE_API_KEYS: API_KEY, PETSTORE_LOCK_TIMEOUT_MS: "300" },
        timeoutMs: 10_000,
      });
      expect(locker.process.exitCode).toBeNull();
      await locker.release();
      expect(result.code).toBe(3);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(
        `error: cannot open database ${dbPath}: the database is locked by another process (waited `,
      );
      expect(result.stderr).toContain(
        "hint: another process (a backup, the sqlite3 shell, another petstore serve) holds its lock: try again when it is done",
      );
      expect(result.stderr).not.toMatch(/\n\s+at /);
      // The file was there before (the other process made it): it is kept, and holds no pets.
      expect(existsSync(dbPath)).toBe(true);
      if (migrated) expect(quantitiesInFile(dbPath)).toEqual([]);
    },
  );
});
