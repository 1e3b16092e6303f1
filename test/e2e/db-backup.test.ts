/**
 * `petstore db backup` end to end: the real server on a SQLite file taking a stream of PATCHes
 * over HTTP while the real binary copies its file; every write acknowledged before the backup
 * started is in the copy, and a second real server serves the copy to the real CLI. Then the
 * binary's refusals: an existing <out>, and a PostgreSQL store.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../src/server/store/sqlite/backup.js";
import { eventually } from "../support/eventually.js";
import { tempDir } from "../support/temp-dir.js";
import { runCli, spawnCli } from "./support/cli.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

const PETS = 300;

interface Ack {
  petId: number;
  quantity: number;
}

interface Entry {
  petId: number;
  quantity: number;
  status: string;
}

/**
 * PATCHes one write after another, each pet's quantity higher than its last (the write's
 * number), until `stop()`; `sent` lists the writes in the order sent (one at a time, so also
 * the order they committed), `acks` those the server answered 200 to.
 */
function writeLoop(baseUrl: string): {
  sent: Ack[];
  acks: Ack[];
  /** Throws what stopped the loop early (a write not answered 200), if anything did. */
  rethrow: () => void;
  stop: () => Promise<void>;
} {
  const sent: Ack[] = [];
  const acks: Ack[] = [];
  const stopped = new AbortController();
  const done = (async () => {
    for (let n = 1; !stopped.signal.aborted; n++) {
      const write = { petId: (n % PETS) + 1, quantity: n };
      sent.push(write);
      const response = await fetch(`${baseUrl}/inventory/${write.petId}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ quantity: write.quantity }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`PATCH answered ${response.status}`);
      acks.push(write);
    }
  })();
  let failure: { error: unknown } | undefined;
  void done.catch((error: unknown) => (failure = { error }));
  return {
    sent,
    acks,
    rethrow: () => {
      if (failure) throw failure.error;
    },
    stop: async () => {
      stopped.abort();
      await done;
    },
  };
}

describe("petstore db backup of a store a server is writing to", () => {
  const backups = tempDir("petstore-backups-");
  const copy = join(backups.dir, "petstore-copy.db");
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({
      seed: Array.from({ length: PETS }, (_, i) => ({
        petId: i + 1,
        name: `Pet ${i + 1}`,
        status: "available" as const,
        quantity: 0,
      })),
    });
  });

  afterAll(async () => {
    await server.stop();
    backups.remove();
  });

  it("copies every acknowledged write, and a second server serves the copy", async () => {
    const loop = writeLoop(server.url);
    let ackedBefore: number;
    let backup: ReturnType<typeof spawnCli>;
    let ackedAtExit: number;
    try {
      await eventually("200 writes acknowledged", () => {
        loop.rethrow();
        return loop.acks.length >= 200;
      });
      // Every write in acks up to here was answered 200 before the backup process existed.
      ackedBefore = loop.acks.length;
      backup = spawnCli(["db", "backup", "--db", server.dbPath, copy, "--json"]);
      await backup.exited;
      ackedAtExit = loop.acks.length;
    } finally {
      await loop.stop();
    }
    expect({ code: await backup.exited, stderr: backup.stderr() }).toEqual({ code: 0, stderr: "" });
    // The writes went on while the backup ran: it neither blocked them nor waited for them.
    expect(ackedAtExit).toBeGreaterThan(ackedBefore);

    const report = JSON.parse(backup.stdout()) as Record<string, unknown>;
    expect(report).toMatchObject({
      path: copy,
      source: server.dbPath,
      integrity: "ok",
      schemaVersion: SCHEMA_VERSION,
      pets: PETS,
      orders: 0,
    });
    // A history record per seeded pet and per write the copy holds: at least those acknowledged.
    expect(report.historyRecords).toBeGreaterThanOrEqual(PETS + ackedBefore);
    expect(report.historyRecords).toBeLessThanOrEqual(PETS + loop.acks.length);
    expect(readdirSync(backups.dir)).toEqual(["petstore-copy.db"]);

    const second = await startServer({ dbPath: copy });
    let listed;
    try {
      expect(second.port).not.toBe(server.port);
      listed = await runCli(["inventory", "list", "--json"], {
        env: { PETSTORE_BASE_URL: second.url, PETSTORE_API_KEY: API_KEY },
      });
    } finally {
      await second.stop();
    }
    expect(listed.code).toBe(0);
    const entries = JSON.parse(listed.stdout) as Entry[];
    expect(entries).toHaveLength(PETS);

    const lastBefore = new Map<number, number>();
    const lastOfAll = new Map<number, number>();
    loop.acks.forEach(({ petId, quantity }, index) => {
      if (index < ackedBefore) lastBefore.set(petId, quantity);
      lastOfAll.set(petId, quantity);
    });
    for (const { petId, quantity } of entries) {
      // As new as the last write acknowledged before the backup started, and never a value
      // from after the last write the server acknowledged.
      expect(quantity, `pet ${petId}`).toBeGreaterThanOrEqual(lastBefore.get(petId) ?? 0);
      expect(quantity, `pet ${petId}`).toBeLessThanOrEqual(lastOfAll.get(petId) ?? 0);
    }
    // One snapshot: the writes were sent one at a time, so the copy holds exactly the first
    // `historyRecords - PETS` of them (the seed made a record per pet), no more, no fewer.
    const inCopy = Number(report.historyRecords) - PETS;
    const snapshot = new Map<number, number>();
    for (const { petId, quantity } of loop.sent.slice(0, inCopy)) snapshot.set(petId, quantity);
    expect(entries.map(({ petId, quantity }) => [petId, quantity])).toEqual(
      Array.from({ length: PETS }, (_, i) => [i + 1, snapshot.get(i + 1) ?? 0]),
    );
  });

  it("refuses an existing <out>: exit 2 naming it, the file byte for byte as it was", async () => {
    const before = readFileSync(copy);
    const result = await runCli(["db", "backup", "--db", server.dbPath, copy]);
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: `error: ${copy} already exists: a backup never overwrites a file\nhint: name a new file (with the date in it, say), or move the old one away first\n`,
    });
    expect(readFileSync(copy).equals(before)).toBe(true);
  });

  it("prints a short report for people", async () => {
    const out = join(backups.dir, "for-people.db");
    const result = await runCli(["db", "backup", "--db", server.dbPath, out]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(
      new RegExp(
        [
          `^backup {15}${out}`,
          `source {15}${server.dbPath}`,
          "bytes {16}\\d+",
          "integrity check {6}ok",
          `schema version {7}${SCHEMA_VERSION}`,
          `pets {17}${PETS}`,
          "orders {15}0",
          "history records {6}\\d+",
          "idempotency records {2}\\d+\\n$",
        ].join("\\n"),
      ),
    );
  });

  it("refuses a PostgreSQL store with the pg_dump command, never printing its URL", async () => {
    const out = join(backups.dir, "pg.db");
    const result = await runCli(["db", "backup", out], {
      env: { PETSTORE_DATABASE_URL: "postgres://petstore:pa55-w0rd@db.internal/petstore" },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'pg_dump --format=custom --file=petstore.dump "$PETSTORE_DATABASE_URL"',
    );
    expect(result.stderr + result.stdout).not.toMatch(/pa55-w0rd|db\.internal/);
    expect(readdirSync(backups.dir)).not.toContain("pg.db");
  });
});
