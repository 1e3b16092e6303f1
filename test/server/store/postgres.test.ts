import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../../src/server/store/migrations.js";
import { POSTGRES_MIGRATIONS } from "../../../src/server/store/postgres-migrations.js";
import { createPool } from "../../../src/server/store/postgres-connection.js";
import { openPostgresStore } from "../../../src/server/store/postgres.js";
import type { Store } from "../../../src/server/store/store.js";
import { StoreUnavailableError } from "../../../src/server/store/store-unavailable-error.js";
import {
  createTestDatabase,
  queryDatabase,
  type TestDatabase,
} from "../../support/postgres-database.js";
import { PETS } from "../fixture.js";
import { describeStoreContract } from "./contract.js";

describeStoreContract("PostgreSQL", async () => {
  const databases: TestDatabase[] = [];
  const database = async () => {
    const made = await createTestDatabase();
    databases.push(made);
    return made;
  };
  const main = await database();
  return {
    open: () => openPostgresStore(main.url),
    openOther: async () => openPostgresStore((await database()).url),
    cleanup: async () => {
      for (const made of databases) await made.drop();
    },
  };
});

describe("PostgreSQL store: engine-specific behaviour", () => {
  let database: TestDatabase;
  const stores: Store[] = [];
  const open = async (url = database.url) => {
    const store = await openPostgresStore(url, { connectTimeoutMs: 2_000 });
    stores.push(store);
    return store;
  };
  const query = <R extends pg.QueryResultRow>(sql: string) => queryDatabase<R>(database.url, sql);
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await database.drop();
  });

  it("numbers its schema versions as the SQLite store does", async () => {
    await open();
    expect(POSTGRES_MIGRATIONS).toHaveLength(MIGRATIONS.length);
    expect(await query("SELECT version FROM petstore_schema")).toEqual([
      { version: MIGRATIONS.length },
    ]);
  });

  it("migrates once when instances start together on an empty database", async () => {
    const [first, , , last] = await Promise.all([open(), open(), open(), open()]);
    await first.seedIfEmpty(PETS);
    expect(await last.listInventory()).toHaveLength(PETS.length);
    expect(await query("SELECT count(*)::int AS n FROM petstore_schema")).toEqual([{ n: 1 }]);
  });

  it("seeds once when instances seed an empty database together", async () => {
    const [a, b] = await Promise.all([open(), open()]);
    const seeded = await Promise.all([a.seedIfEmpty(PETS), b.seedIfEmpty(PETS)]);
    expect(seeded.sort()).toEqual([false, true]);
  });

  it("refuses a database whose schema is newer than it knows", async () => {
    await (await open()).close();
    await query(`UPDATE petstore_schema SET version = ${POSTGRES_MIGRATIONS.length + 1}`);
    await expect(openPostgresStore(database.url)).rejects.toThrow(
      /newer than this petstore supports/,
    );
  });

  it("commits with synchronous_commit on whatever the server's default, and bounds lock waits", async () => {
    await query(`ALTER DATABASE ${database.name} SET synchronous_commit = off`);
    expect(await query("SHOW synchronous_commit")).toEqual([{ synchronous_commit: "off" }]);
    const pool = createPool(database.url, {
      poolSize: 1,
      lockTimeoutMs: 1234,
      connectTimeoutMs: 1000,
    });
    pool.on("error", () => undefined);
    try {
      expect((await pool.query("SHOW synchronous_commit")).rows).toEqual([
        { synchronous_commit: "on" },
      ]);
      expect((await pool.query("SHOW lock_timeout")).rows).toEqual([{ lock_timeout: "1234ms" }]);
    } finally {
      await pool.end();
    }
  });

  it("answers busy, writing nothing, when another session holds the row past the lock time-out", async () => {
    const store = await openPostgresStore(database.url, { lockTimeoutMs: 200 });
    stores.push(store);
    await store.seedIfEmpty(PETS);
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT * FROM pets WHERE id = 1 FOR UPDATE");
      const revision = await store.revision();
      expect(await store.updateQuantity(1n, 9)).toEqual({ kind: "busy" });
      expect(await store.revision()).toBe(revision);
      await holder.query("ROLLBACK");
      expect(await store.updateQuantity(1n, 9)).toMatchObject({ kind: "updated" });
    } finally {
      await holder.end();
    }
  });

  it("reads the revision on one kept connection, and opens another when that one is killed", async () => {
    // Without a cache lease, as while none can be held: every wave of GETs reads.
    const store = await openPostgresStore(database.url, { cacheLease: false });
    stores.push(store);
    await store.seedIfEmpty(PETS);
    const backends = async () =>
      (
        await query<{ pid: number; query: string }>(
          `SELECT pid, query FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        )
      ).filter((backend) => backend.query.includes("inventory_revision"));
    const first = await store.revision();
    expect(await store.revision()).toBe(first);
    const [kept, ...others] = await backends();
    expect(kept).toBeDefined();
    expect(others).toEqual([]);
    // Killed while idle: the process must not crash on the connection's error event.
    await query(`SELECT pg_terminate_backend(${kept?.pid})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await store.updateQuantity(1n, 9)).toMatchObject({ kind: "updated" });
    const after = await store.revision();
    expect(after).not.toBe(first);
    const [replacement] = await backends();
    expect(replacement?.pid).not.toBe(kept?.pid);
  });

  it("gives up a revision read that hangs, with its connection, and reads on a new one after", async () => {
    const store = await openPostgresStore(database.url, {
      connectTimeoutMs: 300,
      lockTimeoutMs: 20_000,
      cacheLease: false,
    });
    stores.push(store);
    await store.seedIfEmpty(PETS);
    const before = await store.revision();
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      // The read waits for this lock far longer than the 300 ms it is given.
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE inventory_revision IN ACCESS EXCLUSIVE MODE");
      const started = Date.now();
      const error = await store.revision().catch((caught: unknown) => caught);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      await holder.query("ROLLBACK");
      expect(await store.revision()).toBe(before);
    } finally {
      await holder.end();
    }
  });

  it("keeps int64 ids exact in every column", async () => {
    const store = await open();
    const [pet] = PETS;
    if (!pet) throw new Error("fixture has no pet");
    await store.seedIfEmpty([
      { ...pet, id: 9223372036854775807n, category: { id: 9223372036854775806n, name: "X" } },
    ]);
    expect(await store.getPet(9223372036854775807n)).toMatchObject({
      id: 9223372036854775807n,
      category: { id: 9223372036854775806n, name: "X" },
    });
    // pg's global type parsers are untouched: int8 is still a string to everyone else.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    expect((await client.query("SELECT 9223372036854775807::int8 AS n")).rows).toEqual([
      { n: "9223372036854775807" },
    ]);
    await client.end();
  });

  it("rejects with StoreUnavailableError naming host and database, not the password, when it cannot connect", async () => {
    const url = "postgres://petstore:hunter2-secret@127.0.0.1:1/inventory";
    const error = await openPostgresStore(url, { connectTimeoutMs: 1_000 }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/database inventory on 127\.0\.0\.1:1/);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect((error as Error).message).not.toContain("hunter2");
  });

  it("rejects with a plain Error (a configuration fault) for a wrong password or database", async () => {
    const wrongPassword = database.url.replace(/:[^:@/]*@/, ":not-the-password@");
    const error = await openPostgresStore(wrongPassword).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/password authentication failed/);
    expect((error as Error).message).not.toContain("not-the-password");
    const noDatabase = database.url.replace(database.name, "no_such_database");
    await expect(openPostgresStore(noDatabase)).rejects.toThrow(/does not exist/);
  });
});

describe("PostgreSQL store: cache leases", () => {
  let database: TestDatabase;
  const stores: Store[] = [];
  const open = async () => {
    const store = await openPostgresStore(database.url, { connectTimeoutMs: 2_000 });
    stores.push(store);
    return store;
  };
  const query = <R extends pg.QueryResultRow>(sql: string) => queryDatabase<R>(database.url, sql);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** Waits until `count` instances hold a lease, and a little more for them to hear so. */
  const leasesHeld = async (count: number) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [row] = await query<{ n: number }>(
        "SELECT count(*)::int AS n FROM inventory_instances WHERE lease_until > now()",
      );
      if (row?.n === count) break;
      if (Date.now() > deadline) throw new Error(`${row?.n} leases held, not ${count}`);
      await sleep(20);
    }
    await sleep(100);
  };
  /** How long `action` takes, in ms. */
  const timed = async (action: () => Promise<unknown>) => {
    const started = performance.now();
    await action();
    return performance.now() - started;
  };
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await database.drop();
  });

  it("answers the revision from its lease without a read, and reads again once a lease passes unrenewed", async () => {
    const store = await open();
    await store.seedIfEmpty(PETS);
    await leasesHeld(1);
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      // Reads and renewals of the revision both wait for this lock.
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE inventory_revision IN ACCESS EXCLUSIVE MODE");
      const during = store.revision();
      expect(await Promise.race([during, sleep(200).then(() => "no answer")])).toMatch(/^\d+$/);
      await sleep(1_200);
      const after = store.revision();
      expect(await Promise.race([after, sleep(300).then(() => "no answer")])).toBe("no answer");
      await holder.query("ROLLBACK");
      expect(await after).toBe(await during);
    } finally {
      await holder.end();
    }
  });

  it("acknowledges a write on one instance only once the other knows its revision, 300 times", async () => {
    const [a, b] = [await open(), await open()];
    await a.seedIfEmpty(PETS);
    await leasesHeld(2);
    for (let round = 0; round < 300; round++) {
      const [writer, reader] = round % 2 === 0 ? [a, b] : [b, a];
      const before = await reader.revision();
      expect(await writer.updateQuantity(1n, 100 + round)).toMatchObject({ kind: "updated" });
      const after = await reader.revision();
      if (after === before)
        throw new Error(`round ${round}: the reader's revision stayed ${before}`);
      expect(await reader.getInventoryItem(1n)).toMatchObject({ quantity: 100 + round });
    }
    // Both held their leases throughout, so every revision above came from one.
    expect(
      await query("SELECT id FROM inventory_instances WHERE lease_until > now()"),
    ).toHaveLength(2);
  });

  it("waits for an instance whose lease runs but which does not answer at most a lease, for a write or its replay, and not for a write that changed nothing", async () => {
    const store = await open();
    await store.seedIfEmpty(PETS);
    await leasesHeld(1);
    // An instance stopped (SIGSTOP, a long pause) just after renewing its lease.
    await query(
      "INSERT INTO inventory_instances (id, lease_until) VALUES ('stalled', now() + interval '1 second')",
    );
    const changedNothing = await timed(async () => {
      const result = await store.updateQuantity(1n, 7, {
        condition: { kind: "quantity_in", quantities: [123_456] },
      });
      expect(result.kind).toBe("precondition_failed");
    });
    expect(changedNothing).toBeLessThan(500);
    const waited = await timed(() => store.updateQuantity(1n, 7));
    expect(waited).toBeGreaterThanOrEqual(800);
    expect(waited).toBeLessThan(3_000);
    expect(await store.getInventoryItem(1n)).toMatchObject({ quantity: 7 });
    // A replayed answer acknowledges a write too: it waits as the write did.
    await query(
      "UPDATE inventory_instances SET lease_until = now() + interval '1 second' WHERE id = 'stalled'",
    );
    const keyed = {
      idempotency: {
        owner: "alice",
        key: "k-1",
        fingerprint: "f-1",
        at: Date.now(),
        render: () => ({ status: 200, body: "ok", etag: null }),
      },
    };
    expect(await timed(() => store.updateQuantity(1n, 9, keyed))).toBeGreaterThanOrEqual(800);
    await query(
      "UPDATE inventory_instances SET lease_until = now() + interval '1 second' WHERE id = 'stalled'",
    );
    const replay = await timed(async () => {
      expect(await store.updateQuantity(1n, 9, keyed)).toMatchObject({ kind: "replayed" });
    });
    expect(replay).toBeGreaterThanOrEqual(800);
    // Its lease has run out (past the grace writers allow for the database's clock): nobody
    // to wait for.
    await query(
      "UPDATE inventory_instances SET lease_until = now() - interval '2 seconds' WHERE id = 'stalled'",
    );
    expect(await timed(() => store.updateQuantity(1n, 8))).toBeLessThan(500);
  });

  it("listens and takes its lease again on a new connection when its lease connection is killed", async () => {
    const [a, b] = [await open(), await open()];
    await a.seedIfEmpty(PETS);
    await leasesHeld(2);
    const leaseBackends = () =>
      query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'petstore cache lease' ORDER BY pid",
      );
    const before = await leaseBackends();
    expect(before).toHaveLength(2);
    await query(`SELECT pg_terminate_backend(${before[1]?.pid})`);
    await sleep(1_200);
    await leasesHeld(2);
    const after = await leaseBackends();
    expect(after).toHaveLength(2);
    expect(after.map((backend) => backend.pid)).not.toContain(before[1]?.pid);
    // Both hear each other's writes again: no write waits for a lease to run out.
    const took = await timed(async () => {
      for (let round = 0; round < 20; round++) {
        const [writer, reader] = round % 2 === 0 ? [a, b] : [b, a];
        const before = await reader.revision();
        expect(await writer.updateQuantity(2n, round)).toMatchObject({ kind: "updated" });
        expect(await reader.revision()).not.toBe(before);
      }
    });
    expect(took).toBeLessThan(5_000);
  });

  it("follows the revision down at its next renewal when the database goes back (a restore)", async () => {
    const store = await open();
    await store.seedIfEmpty(PETS);
    await leasesHeld(1);
    for (let round = 0; round < 5; round++) await store.updateQuantity(1n, round);
    const high = await store.revision();
    await query("UPDATE inventory_revision SET revision = 1");
    await sleep(600);
    expect(await store.revision()).toBe("1");
    expect(Number(high)).toBeGreaterThan(1);
  });

  it("ignores the revisions of a store in another schema of the same database", async () => {
    const role = `petstore_other_${Math.random().toString(36).slice(2, 10)}`;
    await query(`CREATE ROLE ${role} LOGIN PASSWORD 'other-secret'`);
    await query(`CREATE SCHEMA ${role} AUTHORIZATION ${role}`);
    await query(`ALTER ROLE ${role} SET search_path = ${role}`);
    try {
      const url = database.url.replace(/\/\/[^@]*@/, `//${role}:other-secret@`);
      const mine = await open();
      // Two there, so that their writes are announced (to each other, on the shared channel).
      const theirs = await openPostgresStore(url);
      const theirOther = await openPostgresStore(url);
      stores.push(theirs, theirOther);
      await mine.seedIfEmpty(PETS);
      await theirs.seedIfEmpty(PETS);
      await leasesHeld(1);
      await sleep(300);
      const before = await mine.revision();
      for (let round = 0; round < 10; round++) await theirs.updateQuantity(1n, round);
      await sleep(100);
      expect(await mine.revision()).toBe(before);
      expect(Number(await theirs.revision())).toBeGreaterThan(Number(before));
    } finally {
      for (const store of stores.splice(0)) await store.close();
      await query(`DROP SCHEMA ${role} CASCADE`);
      await query(`DROP ROLE ${role}`);
    }
  });

  it("gives its lease up when closed, and takes none when told not to", async () => {
    const a = await open();
    const b = await open();
    await leasesHeld(2);
    await b.close();
    expect(await query("SELECT id FROM inventory_instances")).toHaveLength(1);
    await a.close();
    expect(await query("SELECT id FROM inventory_instances")).toEqual([]);
    const without = await openPostgresStore(database.url, { cacheLease: false });
    stores.push(without);
    await without.revision();
    await sleep(300);
    expect(await query("SELECT id FROM inventory_instances")).toEqual([]);
  });
});
