/**
 * How a batch's refs are found on SQLite: one statement for all of them, each pair found by
 * the unique index (ref first, so a batch's refs, which share a prefix, are written together);
 * none at all when one probe of the index finds no stored ref starting with their prefix
 * (what that finds, on both engines, is in the store contract).
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openConnection } from "../../../../src/server/store/sqlite/connection.js";
import { prepareStatements } from "../../../../src/server/store/sqlite/statements.js";
import { openSqliteStore } from "../../../../src/server/store/sqlite/store.js";
import { petsWithIds, tempDir } from "../../fixture.js";

describe("SQLite: the refs a batch carries", () => {
  let temp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    temp = tempDir();
  });
  afterEach(() => {
    temp.remove();
  });

  it("are looked up in one statement, each pair by the index, with no scan of the changes", () => {
    const db = openConnection(join(temp.dir, "store.db"), 1000, () => performance.now());
    const { findRefs } = prepareStatements(db);
    const plan = db
      .prepare<[string], { detail: string }>(`EXPLAIN QUERY PLAN ${findRefs.source}`)
      .all("[]")
      .map((step) => step.detail);
    db.close();
    expect(plan.filter((detail) => /\b(SEARCH|SCAN) c\b/.test(detail))).toEqual([
      "SEARCH c USING COVERING INDEX inventory_changes_by_ref (ref=? AND pet_id=?)",
    ]);
  });

  it("are probed by their common prefix in one step into the index", () => {
    const db = openConnection(join(temp.dir, "store.db"), 1000, () => performance.now());
    const { firstRefFrom } = prepareStatements(db);
    const plan = db
      .prepare<[string], { detail: string }>(`EXPLAIN QUERY PLAN ${firstRefFrom.source}`)
      .all("count:")
      .map((step) => step.detail);
    db.close();
    expect(plan).toEqual([
      "SEARCH inventory_changes USING COVERING INDEX inventory_changes_by_ref (ref>?)",
    ]);
  });

  it("are found for pet ids past 2^53, and a ref of one pet is not another's", async () => {
    const big = 9_007_199_254_740_993n;
    const store = openSqliteStore(join(temp.dir, "store.db"));
    await store.seedIfEmpty(petsWithIds([big, big + 1n]));
    const sell = (petId: bigint) => ({ petId, delta: -1, ref: "sale:1" });
    const first = await store.applyBatch({ atomic: false, dryRun: false, changes: [sell(big)] });
    const again = await store.applyBatch({
      atomic: false,
      dryRun: false,
      changes: [sell(big), sell(big + 1n)],
    });
    await store.close();
    expect(first.kind === "evaluated" && first.results.map((r) => r.outcome)).toEqual(["changed"]);
    expect(again.kind === "evaluated" && again.results.map((r) => [r.outcome, r.quantity])).toEqual(
      [
        ["duplicate", 9],
        ["changed", 9],
      ],
    );
  });
});
