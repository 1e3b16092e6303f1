/**
 * How a batch's refs are found on SQLite: one statement for all of them, each pair found by
 * the unique index (ref first, so a batch's refs, which share a prefix, are written together);
 * none at all when one probe of the index finds no stored ref starting with their prefix.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openConnection } from "../../../../src/server/store/sqlite/connection.js";
import { prepareStatements } from "../../../../src/server/store/sqlite/statements.js";
import { commonPrefix, openSqliteStore } from "../../../../src/server/store/sqlite/store.js";
import { tempDir } from "../../fixture.js";

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

  describe("by their common prefix", () => {
    const pets = [1n, 2n, 3n];
    const outcomes = async (stored: [bigint, string][], posted: [bigint, string][]) => {
      const store = openSqliteStore(join(temp.dir, `store-${Math.random()}.db`));
      await store.seedIfEmpty(
        pets.map((id) => ({
          id,
          name: `pet ${id}`,
          status: "available" as const,
          quantity: 10,
          photoUrls: [],
          tags: [],
        })),
      );
      const batch = (pairs: [bigint, string][]) =>
        store.applyBatch({
          atomic: false,
          dryRun: false,
          changes: pairs.map(([petId, ref]) => ({ petId, delta: -1, ref })),
        });
      if (stored.length > 0) await batch(stored);
      const result = await batch(posted);
      await store.close();
      return result.kind === "evaluated" && result.results.map((r) => r.outcome);
    };

    it("finds the one applied ref among new ones sharing its prefix", async () => {
      expect(
        await outcomes(
          [[2n, "till-1/2026-11-26:2"]],
          [
            [1n, "till-1/2026-11-26:1"],
            [2n, "till-1/2026-11-26:2"],
            [3n, "till-1/2026-11-26:3"],
          ],
        ),
      ).toEqual(["changed", "duplicate", "changed"]);
    });

    it("applies refs whose prefix only stored refs of other pets start with", async () => {
      expect(
        await outcomes(
          [[3n, "count:s1:1"]],
          [
            [1n, "count:s1:1"],
            [2n, "count:s1:2"],
          ],
        ),
      ).toEqual(["changed", "changed"]);
    });

    it("applies refs whose prefix no stored ref starts with, before or after it in order", async () => {
      const posted: [bigint, string][] = [
        [1n, "till-1/2026-11-26:1"],
        [2n, "till-1/2026-11-26:2"],
      ];
      const around: [bigint, string][] = [
        [1n, "till-1/2026-11-25:1"],
        [2n, "till-1/2026-11-27:2"],
        [3n, "till-1/2026-11-2"],
      ];
      expect(await outcomes(around, posted)).toEqual(["changed", "changed"]);
    });

    it("looks up refs sharing no prefix one by one", async () => {
      expect(
        await outcomes(
          [[1n, "b:1"]],
          [
            [1n, "a:1"],
            [1n, "b:1"],
          ],
        ),
      ).toEqual(["changed", "duplicate"]);
    });
  });

  it("have a common prefix: the longest one every ref starts with", () => {
    expect(commonPrefix([])).toBe("");
    expect(commonPrefix(["count:s1:42"])).toBe("count:s1:42");
    expect(commonPrefix(["count:s1:42", "count:s1:43", "count:s1:4"])).toBe("count:s1:4");
    expect(commonPrefix(["count:s1:4", "count:s1:42"])).toBe("count:s1:4");
    expect(commonPrefix(["a:1", "b:1"])).toBe("");
    expect(commonPrefix(["sale:1", "sale:1"])).toBe("sale:1");
  });

  it("are found for pet ids past 2^53, and a ref of one pet is not another's", async () => {
    const big = 9_007_199_254_740_993n;
    const store = openSqliteStore(join(temp.dir, "store.db"));
    await store.seedIfEmpty(
      [big, big + 1n].map((id) => ({
        id,
        name: `pet ${id}`,
        status: "available" as const,
        quantity: 10,
        photoUrls: [],
        tags: [],
      })),
    );
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
