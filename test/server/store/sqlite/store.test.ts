import Database from "better-sqlite3";
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MIGRATIONS } from "../../../../src/server/store/sqlite/migrations.js";
import { openSqliteStore } from "../../../../src/server/store/sqlite/store.js";
import { StoreBusyError } from "../../../../src/server/store/store-busy-error.js";
import { eventually } from "../../../support/eventually.js";
import { hasSettled } from "../../../support/settled.js";
import { PETS, tempDir } from "../../fixture.js";
import { describeStoreContract } from "../contract.js";

/** Any seq: where the test is not about which (a seq test pins them). */
const ANY_SEQ: unknown = expect.any(BigInt);

/** An idempotency claim of owner "o" made now, rendering the outcome's kind. */
function keyClaim(key: string, fingerprint: string) {
  return {
    owner: "o",
    key,
    fingerprint,
    at: Date.now(),
    render: (outcome: { kind: string }) => ({ status: 200, body: outcome.kind, etag: null }),
  };
}

describeStoreContract("SQLite", async () => {
  const temp = tempDir();
  return {
    open: async () => openSqliteStore(join(temp.dir, "store.db")),
    openOther: async () => openSqliteStore(join(temp.dir, "other.db")),
    cleanup: async () => {
      temp.remove();
    },
  };
});

describe("SQLite store: engine-specific behaviour", () => {
  let temp: ReturnType<typeof tempDir>;
  let dbPath: string;
  beforeEach(() => {
    temp = tempDir();
    dbPath = join(temp.dir, "store.db");
  });
  afterEach(() => {
    temp.remove();
  });

  it("creates the schema at the latest version, in WAL mode", async () => {
    const store = openSqliteStore(dbPath);
    await store.close();
    const db = new Database(dbPath);
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("commits with synchronous=FULL (a 200 is fsynced) and never sleeps in SQLite for a lock", async () => {
    // These pragmas hold per connection: read them back on the store's own connection,
    // found as the `this` of its first prepare() call.
    const spy = vi.spyOn(Database.prototype, "prepare");
    const store = openSqliteStore(dbPath);
    const connection = spy.mock.contexts[0] as Database.Database;
    spy.mockRestore();
    const read = (name: string) => connection.pragma(name, { simple: true });
    // 2 is FULL (0 OFF, 1 NORMAL, 3 EXTRA).
    expect(read("synchronous")).toBe(2n);
    // 0: a locked database fails at once and the store waits asynchronously, so a lock
    // another process holds never blocks the event loop.
    expect(read("busy_timeout")).toBe(0n);
    expect(read("foreign_keys")).toBe(1n);
    await store.close();
  });

  it("refuses a database whose schema is newer than it knows", () => {
    const db = new Database(dbPath);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => openSqliteStore(dbPath)).toThrow(/newer than this petstore supports/);
  });

  it("asks SQLite about other connections' writes on every revision, with no interval", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    const other = openSqliteStore(dbPath);
    for (let round = 0; round < 20; round++) {
      const before = await store.revision();
      expect(await other.updateQuantity(1n, round)).toMatchObject({ kind: "updated" });
      expect(await store.revision()).not.toBe(before);
      // A revision changes only with a write: asking again gives the same token.
      expect(await store.revision()).toBe(await store.revision());
    }
    await other.close();
    await store.close();
  });

  it("migrates a version-1 database (before idempotency keys) on open, keeping its data", async () => {
    const db = new Database(dbPath);
    db.exec(MIGRATIONS[0] ?? "");
    db.pragma("user_version = 1");
    db.exec(
      "INSERT INTO pets (id, name, status, quantity) VALUES (9223372036854775807, 'Max', 'pending', 5)",
    );
    db.close();
    const store = openSqliteStore(dbPath);
    expect((await store.listInventory()).items).toEqual([
      { petId: 9223372036854775807n, quantity: 5, status: "pending" },
    ]);
    const claim = {
      owner: "o",
      key: "k",
      fingerprint: "f",
      at: Date.now(),
      render: () => ({ status: 200, body: "kept", etag: '"6"' }),
    };
    expect(
      await store.updateQuantity(9223372036854775807n, 6, { idempotency: claim }),
    ).toMatchObject({ kind: "updated" });
    expect(await store.updateQuantity(9223372036854775807n, 6, { idempotency: claim })).toEqual({
      kind: "replayed",
      response: { status: 200, body: "kept", etag: '"6"' },
      seq: ANY_SEQ,
    });
    await store.close();
    const check = new Database(dbPath);
    expect(check.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    // The record holds the key's owner digest, never an API key, and the answer.
    expect(check.prepare("SELECT owner, key, status, body FROM idempotency_records").all()).toEqual(
      [{ owner: "o", key: "k", status: 200, body: "kept" }],
    );
    check.close();
  });

  it("keeps the idempotency record and the write in one transaction: a failed write keeps no record", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    // Fails the write's last statement, after its history record and quantity were written.
    const setup = new Database(dbPath);
    setup.exec(`CREATE TRIGGER refuse_boom BEFORE INSERT ON idempotency_records
      WHEN NEW.key = 'boom' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    setup.close();
    const claim = {
      owner: "o",
      key: "boom",
      fingerprint: "f",
      at: Date.now(),
      render: () => ({ status: 200, body: "x", etag: null }),
    };
    await expect(store.updateQuantity(1n, 9, { idempotency: claim })).rejects.toThrow(/refused/);
    expect((await store.getInventoryItem(1n))?.item.quantity).toBe(3);
    expect(await store.listChanges(1n, 20)).toHaveLength(1);
    await store.close();
    const check = new Database(dbPath);
    expect(check.prepare("SELECT count(*) AS n FROM idempotency_records").get()).toEqual({ n: 0 });
    check.close();
  });

  it("migrates a version-5 database on open: of a key's records only the newest is kept, and replays", async () => {
    const db = new Database(dbPath);
    for (const migration of MIGRATIONS.slice(0, 5)) db.exec(migration);
    db.pragma("user_version = 5");
    db.exec("INSERT INTO pets (id, name, status, quantity) VALUES (1, 'Rex', 'available', 4)");
    // Version 5 appended records: an expired one of the key, not yet purged, and its newest.
    const insert = db.prepare(
      `INSERT INTO idempotency_records (owner, key, fingerprint, created_at, status, body, etag)
       VALUES ('o', 'k', ?, ?, 200, ?, NULL)`,
    );
    insert.run("old", 1, "expired");
    insert.run("f", Date.now(), "kept");
    db.close();
    const store = openSqliteStore(dbPath);
    // Kept before records kept their seq: replayed without one.
    expect(await store.updateQuantity(1n, 4, { idempotency: keyClaim("k", "f") })).toEqual({
      kind: "replayed",
      response: { status: 200, body: "kept", etag: null },
      seq: null,
    });
    await store.close();
    const check = new Database(dbPath);
    expect(check.prepare("SELECT fingerprint FROM idempotency_records").all()).toEqual([
      { fingerprint: "f" },
    ]);
    check.close();
  });

  it("migrates a version-2 database on open: its idempotency records still replay", async () => {
    const db = new Database(dbPath);
    db.exec(MIGRATIONS[0] ?? "");
    db.exec(MIGRATIONS[1] ?? "");
    db.pragma("user_version = 2");
    db.exec("INSERT INTO pets (id, name, status, quantity) VALUES (1, 'Rex', 'available', 4)");
    db.prepare(
      `INSERT INTO idempotency_keys (owner, key, fingerprint, created_at, status, body, etag)
       VALUES ('o', 'k', 'f', ?, 200, 'kept', '"4"')`,
    ).run(Date.now());
    db.close();
    const store = openSqliteStore(dbPath);
    expect(await store.updateQuantity(1n, 4, { idempotency: keyClaim("k", "f") })).toEqual({
      kind: "replayed",
      response: { status: 200, body: "kept", etag: '"4"' },
      seq: null,
    });
    expect(await store.updateQuantity(1n, 9, { idempotency: keyClaim("k", "g") })).toEqual({
      kind: "key_reused",
    });
    await store.close();
    const check = new Database(dbPath);
    expect(check.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(
      check.prepare("SELECT name FROM sqlite_schema WHERE name = 'idempotency_keys'").all(),
    ).toEqual([]);
    check.close();
  });

  it("migrates a version-3 database on open: old entries start with no history, then keep one", async () => {
    const db = new Database(dbPath);
    for (const migration of MIGRATIONS.slice(0, 3)) db.exec(migration);
    db.pragma("user_version = 3");
    db.exec("INSERT INTO pets (id, name, status, quantity) VALUES (1, 'Rex', 'available', 4)");
    db.close();
    const store = openSqliteStore(dbPath);
    expect(await store.listChanges(1n, 20)).toEqual([]);
    await store.updateQuantity(1n, 6, {
      author: { at: 1, keyName: "till", requestId: "r", reason: null },
    });
    expect(await store.listChanges(1n, 20)).toEqual([
      {
        seq: ANY_SEQ as bigint,
        petId: 1n,
        at: 1,
        previous: 4,
        quantity: 6,
        keyName: "till",
        requestId: "r",
        reason: null,
        ref: null,
      },
    ]);
    await store.close();
  });

  it("finds a key another process recorded after it opened (two stores on one file)", async () => {
    const a = openSqliteStore(dbPath);
    await a.seedIfEmpty(PETS);
    const b = openSqliteStore(dbPath);
    expect(await a.updateQuantity(1n, 5, { idempotency: keyClaim("from-a", "f") })).toMatchObject({
      kind: "updated",
    });
    expect(await b.updateQuantity(1n, 5, { idempotency: keyClaim("from-a", "f") })).toMatchObject({
      kind: "replayed",
    });
    expect(await b.updateQuantity(1n, 6, { idempotency: keyClaim("from-a", "g") })).toEqual({
      kind: "key_reused",
    });
    expect(await b.updateQuantity(1n, 7, { idempotency: keyClaim("from-b", "f") })).toMatchObject({
      kind: "updated",
    });
    expect(await a.updateQuantity(1n, 7, { idempotency: keyClaim("from-b", "f") })).toMatchObject({
      kind: "replayed",
    });
    expect((await a.getInventoryItem(1n))?.item.quantity).toBe(7);
    await a.close();
    await b.close();
  });

  it("forgets the key of a write that rolled back, and finds a key recorded earlier in the same batch", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    const setup = new Database(dbPath);
    setup.exec(`CREATE TRIGGER refuse_lost BEFORE INSERT ON idempotency_records
      WHEN NEW.key = 'lost' AND NEW.fingerprint = 'f' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    setup.close();
    // One batch: the second request repeats the first (a replay); the third fails inside the
    // transaction, so the batch rolls back and each commits on its own.
    const [first, again, failed] = await Promise.allSettled([
      store.updateQuantity(1n, 5, { idempotency: keyClaim("kept", "f") }),
      store.updateQuantity(1n, 5, { idempotency: keyClaim("kept", "f") }),
      store.updateQuantity(1n, 6, { idempotency: keyClaim("lost", "f") }),
    ]);
    expect(first).toMatchObject({ status: "fulfilled", value: { kind: "updated" } });
    expect(again).toMatchObject({ status: "fulfilled", value: { kind: "replayed" } });
    expect(failed.status).toBe("rejected");
    // Nothing of "lost" was kept: the key starts a new request.
    expect(await store.updateQuantity(1n, 8, { idempotency: keyClaim("lost", "g") })).toMatchObject(
      { kind: "updated", item: { quantity: 8 }, seq: ANY_SEQ },
    );
    expect(await store.updateQuantity(1n, 5, { idempotency: keyClaim("kept", "f") })).toMatchObject(
      { kind: "replayed" },
    );
    await store.close();
    const check = new Database(dbPath);
    expect(
      check.prepare("SELECT key, fingerprint FROM idempotency_records ORDER BY id").all(),
    ).toEqual([
      { key: "kept", fingerprint: "f" },
      { key: "lost", fingerprint: "g" },
    ]);
    check.close();
  });

  it("keeps the WAL bounded over many writes (checkpoints recycle it)", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    for (let i = 0; i < 3000; i++) await store.updateQuantity(1n, i);
    // 1,000-page automatic checkpoints keep it near 4 MB; without them it passes 12 MB here.
    expect(statSync(`${dbPath}-wal`).size).toBeLessThan(6 * 1024 * 1024);
    await store.close();
  });
});

/**
 * Records the longest gap between ticks of a 1 ms interval while it runs: the longest time
 * the event loop was blocked (with busy_timeout=5000 a waiting write blocked it for 5 s).
 * The one wall-time measure in these tests, on purpose: a busy_timeout is SQLite's own sleep
 * inside a synchronous call, which no injected clock reaches, and blocking is what is claimed.
 */
function watchEventLoop(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(longest, performance.now() - last);
    },
  };
}

describe("SQLite store: another process holds the database's lock", () => {
  let temp: ReturnType<typeof tempDir>;
  let dbPath: string;
  /** The store's clock: lock time-outs pass only when a test moves it. */
  let now: number;
  /**
   * How often the store has read its clock: once as an operation arrives (in the call), then
   * once after each attempt at it, so each read after the call is an attempt made.
   */
  let clockReads: number;
  let locker: Database.Database;
  beforeEach(() => {
    temp = tempDir();
    dbPath = join(temp.dir, "store.db");
    now = 0;
    clockReads = 0;
  });
  afterEach(() => {
    if (locker.open) locker.close();
    temp.remove();
  });

  /** A seeded store with a 5 s lock time-out on the test's clock, and a second connection. */
  async function openLocked(seed = true) {
    const store = openSqliteStore(dbPath, {
      lockTimeoutMs: 5000,
      now: () => {
        clockReads++;
        return now;
      },
    });
    if (seed) await store.seedIfEmpty(PETS);
    // A second connection, as a backup or the sqlite3 shell in another process would hold it.
    locker = new Database(dbPath);
    locker.exec("BEGIN IMMEDIATE");
    return store;
  }
  /**
   * Resolves once the store has made `count` more attempts at what it was asked (each reads its
   * clock): it met the lock and tried again, asynchronously, without the test's clock moving.
   */
  async function attempts(count: number): Promise<void> {
    const from = clockReads;
    await eventually(`${count} more attempts by the store`, () => clockReads >= from + count, {
      timeoutMs: 5_000,
    });
  }
  const quantitiesOnDisk = () => {
    const reader = new Database(dbPath, { readonly: true });
    const rows = reader.prepare("SELECT quantity FROM pets ORDER BY id").pluck().all();
    reader.close();
    return rows.map(Number);
  };

  it("answers busy after its time-out, changing nothing, and never blocks the event loop", async () => {
    const store = await openLocked();
    const loop = watchEventLoop();
    const update = store.updateQuantity(1n, 42);
    // The store has tried again and again, asynchronously, and answered nothing yet.
    await attempts(3);
    expect(await hasSettled(update)).toBe(false);
    // WAL readers are not blocked by a writer: reads go on meanwhile.
    expect((await store.listInventory()).items.map((item) => item.quantity)).toEqual([3, 0, 5]);
    expect((await store.getPet(1n))?.name).toBe("Rex");
    now = 4999;
    await attempts(2);
    expect(await hasSettled(update)).toBe(false);
    now = 5000;
    expect(await update).toEqual({ kind: "busy" });
    expect(loop.stop()).toBeLessThan(100);
    locker.exec("COMMIT");
    expect(quantitiesOnDisk()).toEqual([3, 0, 5]);
    expect((await store.listInventory()).items.map((item) => item.quantity)).toEqual([3, 0, 5]);
    await store.close();
  });

  it("commits waiting updates once the lock is released, in order, later ones joining them", async () => {
    const store = await openLocked();
    const waiting = Promise.all([
      store.updateQuantity(1n, 10),
      store.updateQuantity(1n, 11),
      store.updateQuantity(2n, 20),
      store.updateQuantity(404n, 1),
    ]);
    // They met the lock and wait; one arriving meanwhile joins their next attempt.
    await attempts(2);
    const late = store.updateQuantity(2n, 21);
    await attempts(2);
    expect(await hasSettled(waiting)).toBe(false);
    locker.exec("COMMIT");
    expect(await waiting).toEqual([
      {
        kind: "updated",
        item: { petId: 1n, quantity: 10, status: "available" },
        seq: ANY_SEQ,
      },
      {
        kind: "updated",
        item: { petId: 1n, quantity: 11, status: "available" },
        seq: ANY_SEQ,
      },
      {
        kind: "updated",
        item: { petId: 2n, quantity: 20, status: "sold" },
        seq: ANY_SEQ,
      },
      { kind: "not_found" },
    ]);
    expect(await late).toEqual({
      kind: "updated",
      item: { petId: 2n, quantity: 21, status: "sold" },
      seq: ANY_SEQ,
    });
    // Settled means committed: another connection sees every write, the last of each pet.
    expect(quantitiesOnDisk()).toEqual([11, 21, 5]);
    await store.close();
  });

  it("gives each update its own time-out from when it arrived", async () => {
    const store = await openLocked();
    const first = store.updateQuantity(1n, 10);
    now = 3000;
    await attempts(1);
    const second = store.updateQuantity(1n, 11);
    now = 5000;
    expect(await first).toEqual({ kind: "busy" });
    expect(await hasSettled(second)).toBe(false);
    locker.exec("COMMIT");
    expect(await second).toEqual({
      kind: "updated",
      item: { petId: 1n, quantity: 11, status: "available" },
      seq: ANY_SEQ,
    });
    expect(quantitiesOnDisk()).toEqual([11, 0, 5]);
    await store.close();
  });

  it("answers busy at once to an update still waiting when it closes, writing nothing", async () => {
    const store = await openLocked();
    const update = store.updateQuantity(1n, 10);
    await attempts(1);
    await store.close();
    expect(await update).toEqual({ kind: "busy" });
    locker.exec("COMMIT");
    expect(quantitiesOnDisk()).toEqual([3, 0, 5]);
  });

  it("rejects a seed with StoreBusyError after its time-out, seeding nothing", async () => {
    const store = await openLocked(false);
    const seeding = store.seedIfEmpty(PETS);
    await attempts(2);
    expect(await hasSettled(seeding)).toBe(false);
    now = 5000;
    await expect(seeding).rejects.toThrow(StoreBusyError);
    await expect(seeding).rejects.toThrow(/locked by another process \(waited 5000 ms\)/);
    locker.exec("COMMIT");
    expect((await store.listInventory()).items).toEqual([]);
    expect(await store.seedIfEmpty(PETS)).toBe(true);
    await store.close();
  });

  it("waits for a locked read and rejects with StoreBusyError after its time-out", async () => {
    // In WAL mode only rare states block a reader (another connection in exclusive locking
    // mode opened before this one, a crash recovery); SQLite's answer is SQLITE_BUSY.
    const store = await openLocked();
    locker.exec("COMMIT");
    const statement = Object.getPrototypeOf(locker.prepare("SELECT 1")) as Database.Statement;
    const busy = new Database.SqliteError("database is locked", "SQLITE_BUSY");
    const all = vi.spyOn(statement, "all").mockImplementation(() => {
      throw busy;
    });
    try {
      const read = store.listInventory();
      await attempts(2);
      expect(await hasSettled(read)).toBe(false);
      all.mockRestore();
      expect((await read).items.map((item) => item.quantity)).toEqual([3, 0, 5]);

      vi.spyOn(statement, "all").mockImplementation(() => {
        throw busy;
      });
      const stuck = store.listOrders();
      await attempts(1);
      now = 5000;
      await expect(stuck).rejects.toThrow(StoreBusyError);
    } finally {
      vi.restoreAllMocks();
    }
    await store.close();
  });

  it("waits at most its time-out for a lock when opening, then throws StoreBusyError", async () => {
    const store = openSqliteStore(dbPath);
    await store.close();
    // Exclusive locking mode keeps every other connection out of the file, readers too.
    locker = new Database(dbPath);
    locker.pragma("locking_mode = EXCLUSIVE");
    locker.exec("BEGIN EXCLUSIVE; COMMIT");
    const started = performance.now();
    let thrown: unknown;
    try {
      openSqliteStore(dbPath, { lockTimeoutMs: 100 });
    } catch (error) {
      thrown = error;
    }
    const waited = performance.now() - started;
    expect(thrown).toBeInstanceOf(StoreBusyError);
    expect((thrown as StoreBusyError).message).toMatch(
      /^the database is locked by another process \(waited \d+ ms\)$/,
    );
    expect((thrown as StoreBusyError).waitedMs).toBeGreaterThanOrEqual(90);
    expect(waited).toBeGreaterThanOrEqual(90);
    expect(waited).toBeLessThan(3000);
  });
});
