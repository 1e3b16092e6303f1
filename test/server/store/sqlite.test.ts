import Database from "better-sqlite3";
import { statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../../src/server/store/migrations.js";
import { openSqliteStore } from "../../../src/server/store/sqlite.js";
import { PETS, tempDir } from "../fixture.js";

let temp: ReturnType<typeof tempDir>;
let dbPath: string;
beforeEach(() => {
  temp = tempDir();
  dbPath = join(temp.dir, "store.db");
});
afterEach(() => {
  temp.remove();
});

describe("openSqliteStore", () => {
  it("creates the schema at the latest version, in WAL mode with synchronous=FULL", async () => {
    const store = openSqliteStore(dbPath);
    await store.close();
    const db = new Database(dbPath);
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("keeps data across a reopen", async () => {
    const first = openSqliteStore(dbPath);
    await first.seedIfEmpty(PETS);
    await first.updateQuantity(9223372036854775807n, 12);
    await first.close();
    const second = openSqliteStore(dbPath);
    expect(await second.listInventory()).toEqual([
      { petId: 1n, quantity: 3, status: "available" },
      { petId: 2n, quantity: 0, status: "sold" },
      { petId: 9223372036854775807n, quantity: 12, status: "pending" },
    ]);
    await second.close();
  });

  it("refuses a database whose schema is newer than it knows", async () => {
    const db = new Database(dbPath);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => openSqliteStore(dbPath)).toThrow(/newer than this petstore supports/);
  });

  it("seeds only an empty store, all or nothing", async () => {
    const [pet] = PETS;
    if (!pet) throw new Error("fixture has no pet");
    const store = openSqliteStore(dbPath);
    expect(await store.seedIfEmpty(PETS)).toBe(true);
    expect(await store.seedIfEmpty([{ ...pet, id: 50n }])).toBe(false);
    expect(await store.listInventory()).toHaveLength(PETS.length);
    await store.close();

    const other = openSqliteStore(join(temp.dir, "other.db"));
    await expect(other.seedIfEmpty([pet, pet])).rejects.toThrow();
    expect(await other.listInventory()).toEqual([]);
    await other.close();
  });

  it("returns undefined for an unknown pet and changes nothing", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    const revision = await store.revision();
    expect(await store.updateQuantity(404n, 1)).toBeUndefined();
    expect(await store.getPet(404n)).toBeUndefined();
    expect(await store.revision()).toBe(revision);
    await store.close();
  });

  it("changes its revision at once on its own writes", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    const r1 = await store.revision();
    await store.updateQuantity(1n, 9);
    expect(await store.revision()).not.toBe(r1);
    await store.close();
  });

  it("notices another connection's writes once its check interval has passed", async () => {
    const store = openSqliteStore(dbPath, { externalCheckMs: 200 });
    await store.seedIfEmpty(PETS);
    const before = await store.revision();
    const other = openSqliteStore(dbPath);
    await other.updateQuantity(1n, 10);
    await other.close();
    await setTimeout(210);
    expect(await store.revision()).not.toBe(before);
    await store.close();

    const eager = openSqliteStore(dbPath, { externalCheckMs: 0 });
    const r1 = await eager.revision();
    const third = openSqliteStore(dbPath);
    await third.updateQuantity(1n, 11);
    await third.close();
    expect(await eager.revision()).not.toBe(r1);
    await eager.close();
  });

  it("commits concurrent updates together, each answered with its own row", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    const results = await Promise.all([
      store.updateQuantity(1n, 10),
      store.updateQuantity(2n, 20),
      store.updateQuantity(404n, 30),
      store.updateQuantity(1n, 11),
    ]);
    expect(results).toEqual([
      { petId: 1n, quantity: 10, status: "available" },
      { petId: 2n, quantity: 20, status: "sold" },
      undefined,
      { petId: 1n, quantity: 11, status: "available" },
    ]);
    await store.close();
    const reopened = openSqliteStore(dbPath);
    expect((await reopened.listInventory()).slice(0, 2).map((item) => item.quantity)).toEqual([
      11, 20,
    ]);
    await reopened.close();
  });

  it("fails only the bad update of a batch", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    const [good, bad] = await Promise.allSettled([
      store.updateQuantity(1n, 5),
      store.updateQuantity(2n, -1),
    ]);
    expect(good).toEqual({
      status: "fulfilled",
      value: { petId: 1n, quantity: 5, status: "available" },
    });
    expect(bad.status).toBe("rejected");
    await store.close();
  });

  it("commits updates still pending when it closes", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    const pending = store.updateQuantity(1n, 77);
    await store.close();
    expect(await pending).toEqual({ petId: 1n, quantity: 77, status: "available" });
  });

  it("keeps the WAL bounded over many writes (checkpoints recycle it)", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    for (let i = 0; i < 3000; i++) await store.updateQuantity(1n, i);
    // 1,000-page automatic checkpoints keep it near 4 MB; without them it passes 12 MB here.
    expect(statSync(`${dbPath}-wal`).size).toBeLessThan(6 * 1024 * 1024);
    await store.close();
  });

  it("rejects an out-of-range quantity at the database level too", async () => {
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    await expect(store.updateQuantity(1n, -1)).rejects.toThrow(/CHECK/);
    await store.close();
  });
});
