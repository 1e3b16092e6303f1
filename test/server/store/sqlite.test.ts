import Database from "better-sqlite3";
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MIGRATIONS } from "../../../src/server/store/migrations.js";
import { openSqliteStore } from "../../../src/server/store/sqlite.js";
import { PETS, tempDir } from "../fixture.js";
import { describeStoreContract } from "./contract.js";

describeStoreContract("SQLite", async () => {
  const temp = tempDir();
  // externalCheckMs 0: every revision() asks SQLite, as the contract's second connection needs.
  return {
    open: async () => openSqliteStore(join(temp.dir, "store.db"), { externalCheckMs: 0 }),
    openOther: async () => openSqliteStore(join(temp.dir, "other.db"), { externalCheckMs: 0 }),
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
    // found as the `this` of its first pragma() call.
    const spy = vi.spyOn(Database.prototype, "pragma");
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

  it("asks SQLite about other processes' writes only once its check interval has passed", async () => {
    let now = 0;
    const store = openSqliteStore(dbPath, { externalCheckMs: 250, now: () => now });
    await store.seedIfEmpty(PETS);
    const before = await store.revision();
    const other = openSqliteStore(dbPath);
    await other.updateQuantity(1n, 10);
    await other.close();
    now = 249;
    expect(await store.revision()).toBe(before);
    now = 250;
    expect(await store.revision()).not.toBe(before);
    await store.close();
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
