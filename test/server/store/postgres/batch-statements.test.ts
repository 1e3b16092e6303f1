/**
 * How a batch's statements find what they read on PostgreSQL, so that their cost is the
 * batch's and not the history's:
 * - its refs: one statement for all of them, each wanted (pet, ref) pair probing the unique
 *   (ref, pet_id) index. As a plain join of 10,000 pairs the planner had scanned and sorted
 *   every ref ever applied, which grows with every batch a shop posts.
 * - its counts' net since their asOf: one probe of the (pet_id, seq) index per count, and none
 *   at all for a count as of the latest seq (a sheet counted and posted with nothing sold
 *   between), which nothing can have moved after: the statement runs once the pets are
 *   locked, so every change of them has committed.
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

/** Pets 1 to `count`, 10 of each, and their ids as text (as int8 parameters go). */
function numberedPets(count: number) {
  const pets = Array.from({ length: count }, (_, i) => ({
    id: BigInt(i + 1),
    name: `pet ${i + 1}`,
    status: "available" as const,
    quantity: 10,
    photoUrls: [],
    tags: [],
  }));
  return { pets, ids: pets.map((pet) => String(pet.id)) };
}

describe("PostgreSQL: the refs a batch carries", () => {
  const { pets, ids } = numberedPets(2_000);
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

describe("PostgreSQL: the net a count adds, moved after its asOf", () => {
  const { pets, ids } = numberedPets(200);
  let database: TestDatabase;
  let store: Store;
  let beforeSales: bigint;
  let latest: bigint;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await openPostgresStore(database.url);
    await store.seedIfEmpty(pets);
    beforeSales = (await store.listInventory()).seq;
    // Two sales of every pet, then one delivery of three to pet 1.
    for (const delta of [-1, -1]) {
      await store.applyBatch({
        atomic: true,
        dryRun: false,
        changes: pets.map((pet) => ({ petId: pet.id, delta })),
      });
    }
    await store.applyBatch({
      atomic: true,
      dryRun: false,
      changes: [{ petId: 1n, delta: 3 }],
    });
    latest = (await store.listInventory()).seq;
  }, 60_000);

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  const since = (petIds: string[], asOfs: bigint[]) =>
    queryDatabase<{ pet_id: string; as_of: string; net: string }>(database.directUrl, SQL.since, [
      petIds,
      asOfs.map(String),
    ]);

  it("gives the net of each pet's changes after its asOf", async () => {
    const rows = await since(["1", "2", "1"], [beforeSales, beforeSales, latest - 1n]);
    expect(rows.map((row) => [row.pet_id, row.as_of, row.net])).toEqual([
      ["1", String(beforeSales), "1"],
      ["2", String(beforeSales), "-2"],
      ["1", String(latest - 1n), "3"],
    ]);
  });

  it("leaves out a count as of the latest seq, and probes nothing for it", async () => {
    expect(
      await since(
        ids,
        ids.map(() => latest),
      ),
    ).toEqual([]);
    const analyzed = (
      await queryDatabase<{ "QUERY PLAN": string }>(
        database.directUrl,
        `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${SQL.since}`,
        [ids, ids.map(() => String(latest))],
      )
    ).map((row) => row["QUERY PLAN"]);
    const probes = analyzed.filter((step) => /\bon inventory_changes\b/.test(step));
    expect(probes).toHaveLength(1);
    expect(probes[0]).toMatch(/never executed/);
  });
});
