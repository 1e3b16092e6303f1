/**
 * How a batch's refs are found on PostgreSQL: one statement for all of them, each wanted
 * (pet, ref) pair probing the unique (ref, pet_id) index, so that its cost is the batch's and
 * not the history's. As a plain join of 10,000 pairs the planner had scanned and sorted every
 * ref ever applied, which grows with every batch a shop posts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQL } from "../../../../src/server/store/postgres/write-batch.js";
import { openPostgresStore } from "../../../../src/server/store/postgres/store.js";
import type { Store } from "../../../../src/server/store/store.js";
import {
  createTestDatabase,
  queryDatabase,
  type TestDatabase,
} from "../../../support/postgres-database.js";

const PETS = 2_000;
const pets = Array.from({ length: PETS }, (_, i) => ({
  id: BigInt(i + 1),
  name: `pet ${i + 1}`,
  status: "available" as const,
  quantity: 10,
  photoUrls: [],
  tags: [],
}));
const ids = pets.map((pet) => String(pet.id));

describe("PostgreSQL: the refs a batch carries", () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openPostgresStore(database.url);
    await store.seedIfEmpty(pets);
    // A history of refs: ten batches of 2,000 sales, each with its own ref per pet.
    for (let day = 1; day <= 10; day++) {
      const answer = await store.applyBatch({
        atomic: true,
        dryRun: false,
        changes: pets.map((pet) => ({
          petId: pet.id,
          delta: day % 2 === 0 ? 1 : -1,
          ref: `sale:${day}:${pet.id}`,
        })),
      });
      expect(answer.kind).toBe("evaluated");
    }
    await queryDatabase(database.directUrl, "ANALYZE inventory_changes");
  }, 60_000);

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  const plan = async (refs: string[]) =>
    (
      await queryDatabase<{ "QUERY PLAN": string }>(database.directUrl, `EXPLAIN ${SQL.findRefs}`, [
        ids,
        refs,
      ])
    ).map((row) => row["QUERY PLAN"]);

  it("probes the index once per pair, new refs and ones applied before alike, and scans nothing", async () => {
    for (const refs of [ids.map((id) => `count:new:${id}`), ids.map((id) => `sale:3:${id}`)]) {
      const steps = await plan(refs);
      const onChanges = steps.filter((step) => /\bon inventory_changes\b/.test(step));
      expect(onChanges).toHaveLength(1);
      expect(onChanges[0]).toMatch(
        /Index (Only )?Scan using inventory_changes_by_ref on inventory_changes/,
      );
      expect(steps.join("\n")).toMatch(/Nested Loop/);
    }
  });

  it("finds exactly the pairs applied before, a ref of one pet not another's", async () => {
    const wanted = ["sale:3:1", "sale:3:2", "sale:3:1", "sale:99:1"];
    const rows = await queryDatabase<{ pet_id: string; ref: string }>(
      database.directUrl,
      SQL.findRefs,
      [["1", "2", "2", "1"], wanted],
    );
    expect(rows.map((row) => [row.pet_id, row.ref]).sort()).toEqual([
      ["1", "sale:3:1"],
      ["2", "sale:3:2"],
    ]);
  });
});
