/**
 * A full disk, for real: `petstore serve` on a SQLite file in a 2 MiB tmpfs this test mounts
 * (it must run as root), filled by a filler file. Writes are refused with 503 `storage_full`
 * and `Retry-After`, reads answer, the CLI exits 3 saying so, the log says it once, a metric
 * counts the refusals; once the filler is gone the next write succeeds without a restart, and
 * the file passes `integrity_check` holding every acknowledged write and nothing refused.
 * `petstore db backup` onto the full disk fails and leaves nothing. On PostgreSQL, a database
 * whose tablespace is a filled tmpfs, reached directly and through PgBouncer in transaction and
 * in session mode: 503 `storage_full` too (disk_full, 53100). Where a tmpfs cannot be mounted
 * (not root, no mount(8), a container without the right), each block is skipped visibly, its
 * name saying why.
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { TEST_CLUSTER_PASSWORD } from "../support/postgres-cluster.js";
import { forEachRoute, whereSource } from "../support/postgres-database.js";
import {
  cannotMakeTmpfsDatabase,
  createTmpfsDatabase,
  type TmpfsDatabase,
} from "../support/postgres-tmpfs-database.js";
import { cannotMountTmpfs, fillFileSystem, mountTmpfs } from "../support/tmpfs.js";
import { runCli } from "./support/cli.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";
import { metricsUrlOf } from "./support/server-output.js";

const SIZE = "2m";
const PETS = 5;

const whyNot = cannotMountTmpfs();
const title =
  whyNot === undefined
    ? `a full disk (a ${SIZE} tmpfs mounted by the test)`
    : `a full disk: skipped, cannot mount a tmpfs (${whyNot})`;

const auth = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };

interface Answer {
  status: number;
  retryAfter: string | null;
  body: unknown;
}

async function patch(server: RunningServer, petId: number, quantity: number): Promise<Answer> {
  const response = await fetch(`${server.url}/inventory/${petId}`, {
    method: "PATCH",
    headers: auth,
    body: JSON.stringify({ quantity }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: await response.json(),
  };
}

async function batch(server: RunningServer, changes: unknown[]): Promise<Answer> {
  const response = await fetch(`${server.url}/inventory/batch`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ changes }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: await response.json(),
  };
}

async function refusedWrites(metricsUrl: string, reason: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const series = `petstore_writes_refused_total{reason="${reason}"} `;
  const line = text.split("\n").find((candidate) => candidate.startsWith(series));
  return Number(line?.slice(series.length));
}

interface LogLine {
  level: number;
  msg?: string;
  reason?: string;
  code?: string;
}

/** The log's complete lines (a line still being written, after the last newline, is left out). */
function logLines(server: RunningServer): LogLine[] {
  return server
    .stderr()
    .split("\n")
    .slice(0, -1)
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
}

/**
 * The server's log once it holds `count` request lines answered `storage_full` (it writes its
 * log in batches, at least every half second): every line logged up to those refusals.
 */
async function logAfterRefusals(server: RunningServer, count: number): Promise<LogLine[]> {
  const refusals = () =>
    logLines(server).filter((line) => line.msg === "request" && line.code === "storage_full");
  await eventually(
    `${count} storage_full request lines in the log`,
    () => refusals().length >= count,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}; stderr:\n${server.stderr()}`);
  });
  return logLines(server);
}

const isError = (line: LogLine) => line.level >= 50;

const STORAGE_FULL = {
  code: "storage_full",
  status: 503,
  message:
    "the server's storage is full, so nothing was changed; retry once space is freed on the server",
};

describe.skipIf(whyNot !== undefined)(title, () => {
  let mountPoint = "";
  let unmount: (() => void) | undefined;
  let server: RunningServer;
  /** Set once the server started, so afterAll stops it even when a test failed. */
  let stopServer: (() => Promise<unknown>) | undefined;
  let metricsUrl = "";
  let dbPath = "";
  let filler = "";
  /** The quantity each pet was last acknowledged with (200). */
  const acked = new Map<number, number>([
    [1, 10],
    [2, 20],
    [3, 30],
    [4, 40],
    [5, 50],
  ]);
  /** Quantities sent in writes that were refused: none may be in the file. */
  const refused = new Set<number>();

  beforeAll(async () => {
    const tmpfs = mountTmpfs(SIZE);
    mountPoint = tmpfs.dir;
    unmount = tmpfs.unmount;
    dbPath = join(mountPoint, "petstore.db");
    filler = join(mountPoint, "filler");
    server = await startServer({
      dbPath,
      seed: [...acked].map(([petId, quantity]) => ({
        petId,
        name: `pet ${petId}`,
        status: "available",
        quantity,
      })),
      args: ["--metrics-port", "0"],
    });
    stopServer = () => server.stop();
    metricsUrl = await metricsUrlOf(server);
  });

  afterAll(async () => {
    await stopServer?.();
    unmount?.();
  });

  it("refuses writes with 503 storage_full and Retry-After, serves reads, and logs it once", async () => {
    expect((await patch(server, 1, 11)).status).toBe(200);
    acked.set(1, 11);
    fillFileSystem(filler);

    // The WAL may hold a few bytes more: writes that fit are acknowledged, and kept.
    let quantity = 1000;
    let first: Answer | undefined;
    for (let attempt = 0; attempt < 50 && first === undefined; attempt++) {
      const petId = (attempt % PETS) + 1;
      const answer = await patch(server, petId, ++quantity);
      if (answer.status === 200) acked.set(petId, quantity);
      else {
        refused.add(quantity);
        first = answer;
      }
    }
    expect(first).toEqual({ status: 503, retryAfter: "1", body: STORAGE_FULL });

    for (let petId = 1; petId <= PETS; petId++) {
      const answer = await patch(server, petId, ++quantity);
      refused.add(quantity);
      expect(answer).toEqual({ status: 503, retryAfter: "1", body: STORAGE_FULL });
    }
    const changes = [
      { petId: 1, quantity: ++quantity },
      { petId: 2, delta: 1 },
    ];
    refused.add(quantity);
    expect(await batch(server, changes)).toEqual({
      status: 503,
      retryAfter: "1",
      body: STORAGE_FULL,
    });

    // Reads answer, and the server is up.
    const list = await fetch(`${server.url}/inventory`, { headers: auth });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual(
      [...acked].map(([petId, held]) => ({ petId, quantity: held, status: "available" })),
    );
    expect((await fetch(`${server.url}/inventory/2`, { headers: auth })).status).toBe(200);
    expect((await fetch(server.url.replace(/\/v1$/, "/readyz"))).status).toBe(200);

    // One error line for the whole episode, naming the file; the refusals are counted.
    const errors = (await logAfterRefusals(server, PETS + 2)).filter(isError);
    expect(errors).toEqual([
      expect.objectContaining({
        msg: "storage full: writes are refused until space is freed",
        reason: expect.stringContaining(dbPath) as unknown,
      }),
    ]);
    expect(errors[0]?.reason).toMatch(/SQLITE_FULL|SQLITE_IOERR_SHMSIZE/);
    expect(await refusedWrites(metricsUrl, "storage_full")).toBe(PETS + 2);
  });

  it("the CLI's set exits 3 saying the server's storage is full", async () => {
    const result = await runCli(["inventory", "set", "3", "4242"], {
      env: { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: API_KEY },
    });
    refused.add(4242);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("the server's storage is full, so nothing was changed");
    expect(result.stderr).toMatch(
      /^hint: free space on the disk where the server keeps its database/m,
    );
    expect(server.process.exitCode).toBeNull();
    // The CLI tried 3 times (2 retries): still one error line.
    expect((await logAfterRefusals(server, PETS + 2 + 3)).filter(isError)).toHaveLength(1);
    expect(await refusedWrites(metricsUrl, "storage_full")).toBe(PETS + 2 + 3);
  });

  it("db backup onto the full disk fails clearly and leaves nothing", async () => {
    const out = join(mountPoint, "backup.db");
    const result = await runCli(["db", "backup", "--db", dbPath, out]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: copying .* failed: database or disk is full/m);
    expect(readdirSync(mountPoint).filter((name) => name.startsWith("backup"))).toEqual([]);
  });

  it("writes succeed again once space is freed, without a restart; the file holds every acknowledged write", async () => {
    rmSync(filler);
    expect(await patch(server, 3, 33)).toEqual({
      status: 200,
      retryAfter: null,
      body: { petId: 3, quantity: 33, status: "available" },
    });
    acked.set(3, 33);
    const changes = [
      { petId: 4, quantity: 44 },
      { petId: 5, delta: 5 },
    ];
    const applied = await batch(server, changes);
    expect(applied.status).toBe(200);
    acked.set(4, 44);
    acked.set(5, (acked.get(5) ?? 0) + 5);

    // A second episode is logged again, once.
    fillFileSystem(filler);
    let answer: Answer | undefined;
    for (let quantity = 2000; quantity < 2050; quantity++) {
      answer = await patch(server, 2, quantity);
      if (answer.status !== 200) {
        refused.add(quantity);
        break;
      }
      acked.set(2, quantity);
    }
    expect(answer?.status).toBe(503);
    rmSync(filler);

    expect(await server.stop()).toBe(0);
    const lines = logLines(server);
    const episodes = lines.filter(
      (line) => isError(line) || line.msg === "storage has space again: writes resume",
    );
    expect(episodes.map((line) => [line.level, line.msg])).toEqual([
      [50, "storage full: writes are refused until space is freed"],
      [30, "storage has space again: writes resume"],
      [50, "storage full: writes are refused until space is freed"],
    ]);
    const db = new Database(dbPath, { readonly: true });
    try {
      expect(db.prepare("PRAGMA integrity_check").pluck().all()).toEqual(["ok"]);
      const held = db.prepare("SELECT id, quantity FROM pets ORDER BY id").all();
      expect(held).toEqual([...acked].map(([id, quantity]) => ({ id, quantity })));
      const recorded = db.prepare("SELECT quantity FROM inventory_changes").pluck().all();
      for (const quantity of refused) expect(recorded).not.toContain(quantity);
      // Each entry's newest record says what the entry holds: history and quantity agree.
      const last = db
        .prepare(
          "SELECT p.id, p.quantity, c.quantity AS recorded FROM pets p JOIN inventory_changes c ON c.id = p.last_change",
        )
        .all() as { id: number; quantity: number; recorded: number }[];
      expect(last.every((row) => row.quantity === row.recorded)).toBe(true);
      expect(last).toHaveLength(PETS);
    } finally {
      db.close();
    }
  });
});

const whyNotPostgres = cannotMakeTmpfsDatabase();

forEachRoute("a full disk on PostgreSQL", (route, name) => {
  describe.skipIf(whyNotPostgres !== undefined)(
    whyNotPostgres === undefined
      ? `${name} (the database's tablespace a filled tmpfs)`
      : `${name}: skipped (${whyNotPostgres})`,
    () => {
      let database: TmpfsDatabase | undefined;
      let stopServer: (() => Promise<unknown>) | undefined;

      afterAll(async () => {
        if (database) rmSync(database.filler, { force: true });
        await stopServer?.();
        await database?.drop();
      });

      it("refuses writes with 503 storage_full (53100), logs it once without the password, and writes again once space is freed", async () => {
        database = await createTmpfsDatabase("4m", route);
        const server = await startServer({
          databaseUrl: database.url,
          seed: [{ petId: 1, name: "pet 1", status: "available", quantity: 10 }],
        });
        stopServer = () => server.stop();
        fillFileSystem(database.filler);

        // Pages with room take a few more records; a write that needs a new page is refused.
        let answer: Answer | undefined;
        let held = 10;
        for (let quantity = 100; quantity < 2100; quantity++) {
          answer = await patch(server, 1, quantity);
          if (answer.status !== 200) break;
          held = quantity;
        }
        expect(answer).toEqual({ status: 503, retryAfter: "1", body: STORAGE_FULL });
        expect(await patch(server, 1, 5)).toEqual({
          status: 503,
          retryAfter: "1",
          body: STORAGE_FULL,
        });
        expect(await batch(server, [{ petId: 1, delta: 1 }])).toEqual({
          status: 503,
          retryAfter: "1",
          body: STORAGE_FULL,
        });
        const read = await fetch(`${server.url}/inventory/1`, { headers: auth });
        expect(await read.json()).toEqual({ petId: 1, quantity: held, status: "available" });

        const errors = (await logAfterRefusals(server, 3)).filter(isError);
        expect(errors).toHaveLength(1);
        expect(errors[0]?.msg).toBe("storage full: writes are refused until space is freed");
        expect(errors[0]?.reason).toMatch(
          new RegExp(
            `^PostgreSQL database ${database.name} on ${whereSource(route)} is out of disk space: .*No space left on device \\(53100\\)$`,
          ),
        );
        expect(server.stderr()).not.toContain(TEST_CLUSTER_PASSWORD);

        rmSync(database.filler);
        expect(await patch(server, 1, 7)).toEqual({
          status: 200,
          retryAfter: null,
          body: { petId: 1, quantity: 7, status: "available" },
        });
      });
    },
  );
});
