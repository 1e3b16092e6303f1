/** The batch mapping: each outcome of a batch change as a row of apply's and adjust's reports. */
import { describe, expect, it } from "vitest";
import { ADJUST_ROWS, adjustRowResult } from "../../src/apply/adjust-batches.js";
import { applyRows, plannedChange } from "../../src/apply/apply-batches.js";
import { sendRows } from "../../src/apply/batches.js";
import {
  applyRowResult,
  outcomeFailure,
  REJECTED_WITH_BATCH,
} from "../../src/apply/batch-outcomes.js";
import type { DeltaRow } from "../../src/apply/deltas.js";
import type { ApplyPlan, PlannedRow } from "../../src/apply/plan.js";
import type { BatchChange, BatchChangeResult, BatchOutcome } from "../../src/api/types.js";

function result(outcome: BatchOutcome, previous: number | null, quantity: number | null) {
  const found = outcome !== "not_found";
  return {
    petId: 7n,
    outcome,
    previous: found ? previous : null,
    quantity: found ? quantity : null,
    status: found ? ("available" as const) : null,
  };
}

const ROW: PlannedRow = { petId: 7n, previous: 3, desired: 5, change: true };

describe("applyRowResult", () => {
  it.each([
    ["changed", 3, 5, { petId: 7n, previous: 3, desired: 5, outcome: "changed" }],
    ["unchanged", 5, 5, { petId: 7n, previous: 5, desired: 5, outcome: "unchanged" }],
    [
      "conflict",
      9,
      9,
      {
        petId: 7n,
        previous: 3,
        desired: 5,
        outcome: "conflict",
        current: 9,
        failure: { reason: "changed to 9 since it was read; not overwritten", code: "conflict" },
      },
    ],
    [
      "not_found",
      null,
      null,
      {
        petId: 7n,
        previous: 3,
        desired: 5,
        outcome: "failed",
        failure: { reason: "no such pet", code: "not_found" },
      },
    ],
    [
      "too_large",
      3,
      3,
      {
        petId: 7n,
        previous: 3,
        desired: 5,
        outcome: "failed",
        failure: { reason: "would go above 2147483647", code: "too_large" },
      },
    ],
  ] as const)("maps %s", (outcome, previous, quantity, expected) => {
    expect(applyRowResult(ROW, result(outcome, previous, quantity), false)).toEqual(expected);
  });

  it("takes the quantity before from the server when it says (a forced write over a sale)", () => {
    expect(applyRowResult(ROW, result("changed", 2, 5), false).previous).toBe(2);
  });

  it("fails a row that would have changed in a rejected atomic batch: nothing was written", () => {
    expect(applyRowResult(ROW, result("changed", 3, 5), true)).toEqual({
      petId: 7n,
      previous: 3,
      desired: 5,
      outcome: "failed",
      failure: REJECTED_WITH_BATCH,
    });
    expect(REJECTED_WITH_BATCH).toEqual({
      reason: "not applied: the batch was atomic and other rows failed",
      code: "batch_rejected",
      batchRejected: true,
    });
    expect(applyRowResult(ROW, result("unchanged", 5, 5), true).outcome).toBe("unchanged");
  });
});

describe("outcomeFailure", () => {
  it("says what a delta would have made", () => {
    expect(outcomeFailure(result("below_zero", 2, 2), -3)).toEqual({
      reason: "would go below 0 (it holds 2: -3 would make it -1)",
      code: "below_zero",
    });
    expect(outcomeFailure(result("too_large", 2147483640, 2147483640), 10)).toEqual({
      reason: "would go above 2147483647 (it holds 2147483640: +10 would make it 2147483650)",
      code: "too_large",
    });
    expect(outcomeFailure(result("conflict", 4, null))).toEqual({
      reason: "changed since it was read; not overwritten",
      code: "conflict",
    });
    for (const fine of ["changed", "unchanged", "duplicate"] as const) {
      expect(outcomeFailure(result(fine, 1, 1))).toBeUndefined();
    }
  });
});

const SALE: DeltaRow = { petId: 7n, delta: -1, ref: "abc:1", location: { line: 2 }, row: 1 };

describe("adjustRowResult", () => {
  it("maps changed, duplicate and the failures, keeping the server's quantities", () => {
    expect(adjustRowResult(SALE, result("changed", 3, 2), false)).toEqual({
      row: SALE,
      outcome: "changed",
      previous: 3,
      quantity: 2,
    });
    expect(adjustRowResult(SALE, result("duplicate", 2, 2), false)).toEqual({
      row: SALE,
      outcome: "duplicate",
      previous: 2,
      quantity: 2,
    });
    expect(adjustRowResult(SALE, result("below_zero", 0, 0), false)).toEqual({
      row: SALE,
      outcome: "failed",
      previous: 0,
      quantity: 0,
      failure: { reason: "would go below 0 (it holds 0: -1 would make it -1)", code: "below_zero" },
    });
    expect(adjustRowResult(SALE, result("changed", 3, 2), true)).toMatchObject({
      outcome: "failed",
      failure: REJECTED_WITH_BATCH,
    });
  });
});

/** A send that answers each change with the outcome `outcomeOf` gives it. */
function answering(outcomeOf: (change: BatchChange) => BatchOutcome) {
  const sent: BatchChange[][] = [];
  return {
    sent,
    send: (changes: BatchChange[]) => {
      sent.push(changes);
      const results: BatchChangeResult[] = changes
        .map((change) => result(outcomeOf(change), 1, 2))
        .map((r, i) => ({ ...r, petId: changes[i]?.petId ?? 0n }));
      return Promise.resolve({ changed: 0, unchanged: 0, failed: 0, results });
    },
  };
}

describe("sendRows with apply's rows", () => {
  const plan: ApplyPlan = {
    rows: [
      { petId: 1n, previous: 3, desired: 5, change: true },
      { petId: 2n, previous: 4, desired: 4, change: false },
      { petId: 3n, previous: undefined, desired: 1, change: true },
    ],
    changes: 2,
  };

  it("sends only the rows that differ, each conditional on what was read, and reports every row", async () => {
    const server = answering((change) => (change.petId === 3n ? "not_found" : "changed"));
    const progress: [number, number][] = [];
    const report = await sendRows(plan.rows, applyRows(false), {
      send: server.send,
      atomic: false,
      onProgress: (settled, failed) => progress.push([settled, failed]),
    });
    expect(server.sent).toEqual([
      [
        { petId: 1n, quantity: 5, ifQuantity: 3 },
        { petId: 3n, quantity: 1 },
      ],
    ]);
    expect(progress).toEqual([[2, 1]]);
    expect(report).toEqual({
      changed: 1,
      unchanged: 1,
      failed: 1,
      notAttempted: 0,
      results: [
        { petId: 1n, previous: 1, desired: 5, outcome: "changed" },
        { petId: 2n, previous: 4, desired: 4, outcome: "unchanged" },
        {
          petId: 3n,
          previous: undefined,
          desired: 1,
          outcome: "failed",
          failure: { reason: "no such pet", code: "not_found" },
        },
      ],
    });
  });

  it("leaves ifQuantity out with --force", () => {
    expect(plannedChange({ petId: 1n, previous: 3, desired: 5, change: true }, true)).toEqual({
      petId: 1n,
      quantity: 5,
    });
  });

  it("sends 2,500 changes as 1,000, 1,000 and 500, or as one atomic request", async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => ({
      petId: BigInt(i + 1),
      previous: 0,
      desired: 1,
      change: true,
    }));
    const batched = answering(() => "changed");
    await sendRows(rows, applyRows(false), { send: batched.send, atomic: false });
    expect(batched.sent.map((changes) => changes.length)).toEqual([1000, 1000, 500]);
    const atomic = answering(() => "changed");
    await sendRows(rows, applyRows(false), { send: atomic.send, atomic: true });
    expect(atomic.sent.map((changes) => changes.length)).toEqual([2500]);
  });
});

describe("sendRows with adjust's rows", () => {
  it("sends every row with its delta and ref, in order, and counts duplicates as unchanged", async () => {
    const rows: DeltaRow[] = [
      { ...SALE, petId: 1n, ref: "f:1", row: 1 },
      { ...SALE, petId: 1n, ref: "f:2", row: 2, delta: 4 },
      { ...SALE, petId: 2n, ref: "till-9", row: 3 },
    ];
    const server = answering((change) => (change.ref === "f:2" ? "duplicate" : "changed"));
    const report = await sendRows(rows, ADJUST_ROWS, { send: server.send, atomic: false });
    expect(server.sent).toEqual([
      [
        { petId: 1n, delta: -1, ref: "f:1" },
        { petId: 1n, delta: 4, ref: "f:2" },
        { petId: 2n, delta: -1, ref: "till-9" },
      ],
    ]);
    expect(report).toMatchObject({ changed: 2, unchanged: 1, failed: 0 });
    expect("results" in report && report.results.map((r) => r.outcome)).toEqual([
      "changed",
      "duplicate",
      "changed",
    ]);
  });
});
