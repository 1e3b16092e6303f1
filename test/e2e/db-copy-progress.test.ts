/**
 * `petstore db copy` as a person at a terminal runs it: the progress bar on the terminal, then
 * the report; in a pipe, no bar at all (the real binary, a real PostgreSQL database, reached
 * directly and through PgBouncer in transaction and in session mode).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import type { SeedPet } from "../../src/server/store/store.js";
import {
  createTestDatabase,
  forEachRoute,
  type TestDatabase,
} from "../support/postgres-database.js";
import { tempDir } from "../support/temp-dir.js";
import { runCli } from "./support/cli.js";
import { HAS_SCRIPT, runCliInTty } from "./support/tty.js";

let temp: ReturnType<typeof tempDir>;
let from: string;

beforeAll(async () => {
  temp = tempDir();
  from = join(temp.dir, "petstore.db");
  const store = openSqliteStore(from);
  const seed = Array.from({ length: 3 }, (_, index): SeedPet => ({
    id: BigInt(index + 1),
    name: `pet ${index + 1}`,
    status: "available",
    quantity: 2,
    photoUrls: [],
    tags: [],
  }));
  await store.seedIfEmpty(seed, [], { at: Date.UTC(2026, 0, 1), reason: "seed" });
  await store.close();
});
afterAll(() => {
  temp.remove();
});

forEachRoute("db copy's progress", (route, name) => {
  describe(name, () => {
    let database: TestDatabase;

    beforeAll(async () => {
      database = await createTestDatabase(route);
    });
    afterAll(async () => {
      await database.drop();
    });

    it.skipIf(!HAS_SCRIPT)("is drawn on a terminal, before the report", async () => {
      const result = await runCliInTty(["db", "copy", "--from", from], {
        env: { PETSTORE_DATABASE_URL: database.url },
      });
      expect(result.code).toBe(0);
      const bar = result.output.indexOf("copying [------------------------------] 0/6 rows (pets)");
      expect(bar).toBeGreaterThanOrEqual(0);
      expect(result.output.indexOf("units in stock")).toBeGreaterThan(bar);
    });
  });
});

forEachRoute("db copy in a pipe", (route, name) => {
  describe(name, () => {
    let database: TestDatabase;

    beforeAll(async () => {
      database = await createTestDatabase(route);
    });
    afterAll(async () => {
      await database.drop();
    });

    it("draws no bar: stderr is empty, stdout the report", async () => {
      const result = await runCli(["db", "copy", "--from", from], {
        env: { PETSTORE_DATABASE_URL: database.url },
      });
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^ +source +copied\npets +3 +3\n/);
    });
  });
});
