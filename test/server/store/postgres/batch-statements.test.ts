/**
 * How a batch's statements find what they read on PostgreSQL, so that their cost is the
 * batch's and not the history's:
 * - its refs: one statement for all of them, each wanted (pet, ref) pair probing the unique
 *   (ref, pet_id) index. As a plain join of 10,000 pairs the planner had scanned and sorted
 *   every ref ever applied, which grows with every batch a shop posts. None at all when no
 *   stored ref starts with the pairs' common prefix (the first posting of a count session or
 *   a sales file), which one step into the index tells: refs sort byte by byte (version 14),
 *   whatever the database's collation.
 * - its counts' net since their asOf: one probe of the (pet_id, seq) index per count, and none
 *   at all for a count as of the latest seq (a sheet counted and posted with nothing sold
 *   between), which nothing can have moved after: the statement runs once the pets are
 *   locked, so every change of them has committed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQL } from "../../../../src/server/store/postgres/write-batch.js";
import { openPostgresStore } from "../../../../src/server/store/postgres/store.js";
import type { Store } from "../../../../src/server/store/store.js";
import { commonPrefix } from "../../../../src/server/store/write-plan.js";
import {
  createTestDatabase,
  queryDatabase,
  type TestDatabase,
} from "../../../support/postgres-database.js";
import { petsWithIds } from "../../fixture.js";

/** Pets 1 to `count`, 10 of each, and their ids as text (as int8 parameters go). */
function numberedPets(count: number) {
  const pets = petsWithIds(Array.from({ length: count }, (_, i) => BigInt(i + 1)));
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

  /** The plan of findRefs for pets 1 to 2,000 with `refs`, as run (EXPLAIN ANALYZE). */
  const analyzed = async (refs: string[]) =>
    (
      await queryDatabase<{ "QUERY PLAN": string }>(
        database.directUrl,
        `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ${SQL.findRefs}`,
        [ids, refs, commonPrefix(refs)],
      )
    ).map((row) => row["QUERY PLAN"]);
  /** Its steps on inventory_changes: the prefix's probe, then the pairs' (lateral) probe. */
  const onChanges = (steps: string[]) =>
    steps.filter((step) => /\bon inventory_changes\b/.test(step));

  it("probes the index once per pair when a stored ref starts with their prefix, and scans nothing", async () => {
    for (const refs of [
      ids.map((id) => `sale:3:${id}`),
      ids.map((id) => (Number(id) % 2 === 0 ? `sale:3:${id}` : `count:new:${id}`)),
    ]) {
      const steps = onChanges(await analyzed(refs));
      expect(steps).toHaveLength(2);
      for (const step of steps) {
        expect(step).toMatch(
          /Index (Only )?Scan using inventory_changes_by_ref on inventory_changes/,
        );
      }
      expect(steps[0]).toMatch(/loops=1\)/);
      expect(steps[1]).toMatch(/loops=2000\)/);
    }
  });

  it("probes nothing more when no stored ref starts with their prefix", async () => {
    for (const refs of [ids.map((id) => `count:new:${id}`), ids.map((id) => `sale:30:${id}`)]) {
      const steps = onChanges(await analyzed(refs));
      expect(steps).toHaveLength(2);
      expect(steps[0]).toMatch(/Index (Only )?Scan using inventory_changes_by_ref.*loops=1\)/);
      expect(steps[1]).toMatch(/never executed/);
    }
  });

  it("finds exactly the pairs applied before, a ref of one pet not another's", async () => {
    const wanted = ["sale:3:1", "sale:3:2", "sale:3:1", "sale:99:1"];
    for (const prefix of [commonPrefix(wanted), ""]) {
      const rows = await queryDatabase<{ pet_id: string; ref: string }>(
        database.directUrl,
        SQL.findRefs,
        [["1", "2", "2", "1"], wanted, prefix],
      );
      expect(rows.map((row) => [row.pet_id, row.ref]).sort()).toEqual([
        ["1", "sale:3:1"],
        ["2", "sale:3:2"],
      ]);
    }
  });
});

describe("PostgreSQL: refs on a database whose default collation is a language's", () => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    // ICU's en-US weighs case after letters: there "till-A1" sorts between "till-a" and
    // "till-a2", so the least ref from a prefix on need not start with it.
    database = await createTestDatabase("direct", { icuLocale: "en-US" });
    store = await openPostgresStore(database.url);
    await store.seedIfEmpty(numberedPets(3).pets);
  }, 60_000);

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it("compares refs byte by byte, whatever the database's default", async () => {
    const [column] = await queryDatabase<{ collation_name: string }>(
      database.directUrl,
      `SELECT collation_name FROM information_schema.columns
        WHERE table_name = 'inventory_changes' AND column_name = 'ref'`,
    );
    expect(column?.collation_name).toBe("C");
    const [order] = await queryDatabase<{ least: string }>(
      database.directUrl,
      `SELECT min(ref COLLATE "default") AS least FROM unnest(ARRAY['till-A1', 'till-a2']) AS ref
        WHERE ref COLLATE "default" >= 'till-a'`,
    );
    expect(order?.least).toBe("till-A1");
  });

  it("finds a ref applied before among new ones of its prefix, with another case's between", async () => {
    const sell = (petId: bigint, ref: string) => ({ petId, delta: -1, ref });
    const before = await store.applyBatch({
      atomic: false,
      dryRun: false,
      changes: [sell(1n, "till-A1"), sell(2n, "till-a2")],
    });
    expect(before.kind === "evaluated" && before.results.map((r) => r.outcome)).toEqual([
      "changed",
      "changed",
    ]);
    const again = await store.applyBatch({
      atomic: false,
      dryRun: false,
      changes: [sell(2n, "till-a2"), sell(3n, "till-a3")],
    });
    expect(again.kind === "evaluated" && again.results.map((r) => r.outcome)).toEqual([
      "duplicate",
      "changed",
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
