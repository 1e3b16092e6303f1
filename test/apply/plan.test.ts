import { describe, expect, it } from "vitest";
import { planApply } from "../../src/apply/plan.js";

const at = (line: number) => ({ line });

describe("planApply", () => {
  it("diffs each row against the inventory in file order, keeping unknown pets as changes", () => {
    const plan = planApply(
      [
        { petId: 3n, quantity: 4, location: at(2) },
        { petId: 1n, quantity: 9, location: at(3) },
        { petId: 99n, quantity: 1, location: at(4) },
      ],
      [
        { petId: 1n, quantity: 2, status: "available" },
        { petId: 3n, quantity: 4, status: "sold" },
        { petId: 5n, quantity: 7, status: "pending" },
      ],
    );
    expect(plan).toEqual({
      rows: [
        { petId: 3n, previous: 4, desired: 4, change: false },
        { petId: 1n, previous: 2, desired: 9, change: true },
        { petId: 99n, previous: undefined, desired: 1, change: true },
      ],
      changes: 2,
    });
  });

  it("matches int64 ids exactly, not by their rounded doubles", () => {
    const plan = planApply(
      [{ petId: 9223372036854775807n, quantity: 1, location: at(2) }],
      [{ petId: 9223372036854775806n, quantity: 1, status: "sold" }],
    );
    expect(plan.rows[0]).toMatchObject({ previous: undefined, change: true });
  });

  it("plans nothing for no rows", () => {
    expect(planApply([], [{ petId: 1n, quantity: 1, status: "sold" }])).toEqual({
      rows: [],
      changes: 0,
    });
  });
});
