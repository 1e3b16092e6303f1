/**
 * db copy's progress: copyStore tells how many rows of all tables the target has taken, page
 * by page, and `petstore db copy` draws it on stderr only when stderr is a terminal; into a
 * database reached directly and through PgBouncer in transaction and in session mode.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyStore, type CopyProgress } from "../../src/server/store/copy/copy-store.js";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import type { SeedPet } from "../../src/server/store/store.js";
import { runFake } from "../commands/fake-deps.js";
import {
  createTestDatabase,
  forEachRoute,
  type TestDatabase,
} from "../support/postgres-database.js";
import { tempDir } from "../support/temp-dir.js";

let temp: ReturnType<typeof tempDir>;

/** A SQLite store of `pets` pets, each with its seed's history record. */
async function storeOf(pets: number): Promise<string> {
  const path = join(temp.dir, "petstore.db");
  const store = openSqliteStore(path);
  try {
    const seed = Array.from({ length: pets }, (_, index): SeedPet => ({
      id: BigInt(index + 1),
      name: `pet ${index + 1}`,
      status: "available",
      quantity: 1,
      photoUrls: [],
      tags: [],
    }));
    await store.seedIfEmpty(seed, [], { at: Date.UTC(2026, 0, 1), reason: "seed" });
  } finally {
    await store.close();
  }
  return path;
}

forEachRoute("db copy's progress", (route, name) => {
  describe(name, () => {
    let database: TestDatabase;
    beforeEach(async () => {
      temp = tempDir();
      database = await createTestDatabase(route);
    });
    afterEach(async () => {
      await database.drop();
      temp.remove();
    });

    it("is told 0 of all rows, then each page the target took, up to all of them", async () => {
      // 12,000 pets and their 12,000 seed records: three pages of 5,000 rows each.
      const from = await storeOf(12_000);
      const seen: CopyProgress[] = [];
      await copyStore({ from, url: database.url, onProgress: (progress) => seen.push(progress) });
      expect(seen).toEqual([
        { table: "pets", copied: 0, total: 24_000 },
        { table: "pets", copied: 5_000, total: 24_000 },
        { table: "pets", copied: 10_000, total: 24_000 },
        { table: "pets", copied: 12_000, total: 24_000 },
        { table: "history records", copied: 17_000, total: 24_000 },
        { table: "history records", copied: 22_000, total: 24_000 },
        { table: "history records", copied: 24_000, total: 24_000 },
      ]);
    });

    it("is drawn on stderr when it is a terminal, and cleared before the report", async () => {
      const from = await storeOf(3);
      const result = await runFake(["db", "copy", "--from", from], {
        env: { PETSTORE_DATABASE_URL: database.url },
        stderrIsTTY: true,
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain("copying [------------------------------] 0/6 rows (pets)");
      expect(result.stdout).toMatch(/^ +source +copied\npets +3 +3\n/);
    });

    it("is not drawn in a pipe: stderr stays empty", async () => {
      const from = await storeOf(3);
      const result = await runFake(["db", "copy", "--from", from], {
        env: { PETSTORE_DATABASE_URL: database.url },
      });
      expect(result).toMatchObject({ code: 0, stderr: "" });
    });
  });
});
