/**
 * How a batch's counts find what moved after their asOf on PostgreSQL: one statement, one
 * probe of the (pet_id, seq) index per count, and none at all for a count as of the latest
 * seq (a sheet counted and posted with nothing sold between), which nothing can have moved
 * after: the statement runs once the pets are locked, so every change of them has committed.
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

const PETS = 200;
const pets = Array.from({ length: PETS }, (_, i) => ({
  id: BigInt(i + 1),
  name: `pet ${i + 1}`,
  status: "available" as const,
  quantity: 10,
  photoUrls: [],
  tags: [],
}));
const ids = pets.map((pet) => String(pet.id));

describe("PostgreSQL: the net a count adds, moved after its asOf", () => {
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
