/**
 * The SQLite store on a full file system: which errors are "full", and, on a real tmpfs (as
 * root; skipped visibly elsewhere), that single writes, a group commit and a batch reject
 * with StoreFullError and nothing of them is written, reads answer, and the same connection
 * commits again once space is freed.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isStorageFull } from "../../../../src/server/store/sqlite/storage-full.js";
import { openSqliteStore } from "../../../../src/server/store/sqlite/store.js";
import { StoreFullError } from "../../../../src/server/store/store-full-error.js";
import type { Store } from "../../../../src/server/store/store.js";
import { cannotMountTmpfs, fillFileSystem, mountTmpfs } from "../../../support/tmpfs.js";
import { PETS } from "../../fixture.js";

describe("isStorageFull (SQLite)", () => {
  it("is SQLITE_FULL and SQLITE_IOERR_SHMSIZE, what a full file system gives", () => {
    const error = (code: string) => new Database.SqliteError("x", code);
    expect(isStorageFull(error("SQLITE_FULL"))).toBe(true);
    expect(isStorageFull(error("SQLITE_IOERR_SHMSIZE"))).toBe(true);
    // A write failing with anything but ENOSPC (EIO: a failing disk) is a fault.
    expect(isStorageFull(error("SQLITE_IOERR_WRITE"))).toBe(false);
    expect(isStorageFull(error("SQLITE_IOERR_FSYNC"))).toBe(false);
    expect(isStorageFull(error("SQLITE_BUSY"))).toBe(false);
    expect(isStorageFull(error("SQLITE_CORRUPT"))).toBe(false);
    expect(isStorageFull(Object.assign(new Error("x"), { code: "SQLITE_FULL" }))).toBe(false);
  });
});

const whyNot = cannotMountTmpfs();

describe.skipIf(whyNot !== undefined)(
  whyNot === undefined
    ? "SQLite store on a full tmpfs"
    : `SQLite store on a full tmpfs: skipped, cannot mount a tmpfs (${whyNot})`,
  () => {
    let tmpfs: ReturnType<typeof mountTmpfs>;
    let store: Store;
    let dbPath: string;
    let filler: string;

    beforeEach(async () => {
      tmpfs = mountTmpfs("1m");
      dbPath = join(tmpfs.dir, "store.db");
      filler = join(tmpfs.dir, "filler");
      store = openSqliteStore(dbPath);
      await store.seedIfEmpty(PETS);
    });

    afterEach(async () => {
      await store.close();
      tmpfs.unmount();
    });

    /** Writes pet 1 until one is refused (the WAL's last page may take a few); the rejection. */
    async function firstRefusal(): Promise<unknown> {
      for (let quantity = 100; quantity < 200; quantity++) {
        try {
          await store.updateQuantity(1n, quantity);
        } catch (error) {
          return error;
        }
      }
      throw new Error("no write was refused on a full file system");
    }

    it("a single write, a group commit and a batch reject with StoreFullError; reads answer; writes resume", async () => {
      fillFileSystem(filler);
      const refused = await firstRefusal();
      expect(refused).toBeInstanceOf(StoreFullError);
      expect((refused as Error).message).toMatch(
        new RegExp(
          `^the SQLite database ${dbPath} cannot grow: .*\\((SQLITE_FULL|SQLITE_IOERR_SHMSIZE)\\)$`,
        ),
      );
      const held = (await store.getInventoryItem(1n))?.item.quantity;

      // Writes arriving together are one group commit, tried again one by one: each is refused
      // as full, none turns into another error.
      const group = await Promise.allSettled([
        store.updateQuantity(1n, 501),
        store.updateQuantity(2n, 502),
        store.updateQuantity(1n, 503),
        store.applyBatch({ changes: [{ petId: 2n, delta: 4 }], atomic: false, dryRun: false }),
      ]);
      for (const settled of group) {
        expect(settled.status).toBe("rejected");
        expect((settled as PromiseRejectedResult).reason).toBeInstanceOf(StoreFullError);
      }
      expect((await store.listInventory()).items).toEqual([
        { petId: 1n, quantity: held, status: "available" },
        { petId: 2n, quantity: 0, status: "sold" },
        { petId: 9223372036854775807n, quantity: 5, status: "pending" },
      ]);

      rmSync(filler);
      const resumed = await Promise.all([
        store.updateQuantity(1n, 601),
        store.updateQuantity(2n, 602),
        store.applyBatch({ changes: [{ petId: 2n, delta: 4 }], atomic: false, dryRun: false }),
      ]);
      expect(resumed.map((result) => result.kind)).toEqual(["updated", "updated", "evaluated"]);
      expect((await store.getInventoryItem(2n))?.item.quantity).toBe(606);
      const history = (await store.listChanges(2n, 10))?.map((record) => record.quantity);
      expect(history).toEqual([606, 602, 0]);

      const check = new Database(dbPath, { readonly: true });
      try {
        expect(check.prepare("PRAGMA integrity_check").pluck().all()).toEqual(["ok"]);
        const recorded = check.prepare("SELECT quantity FROM inventory_changes").pluck().all();
        for (const quantity of [501, 502, 503]) expect(recorded).not.toContain(quantity);
      } finally {
        check.close();
      }
    });
  },
);
