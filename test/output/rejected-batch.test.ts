import { describe, expect, it } from "vitest";
import { rejectedBatchNote } from "../../src/output/rejected-batch.js";

const failing = { outcome: "failed", failure: { reason: "no such pet" } };
const withIt = {
  outcome: "failed",
  failure: { reason: "not applied: the batch was atomic", batchRejected: true as const },
};
const changed = { outcome: "changed" };

describe("rejectedBatchNote", () => {
  it("says nothing of a batch that was not rejected", () => {
    expect(rejectedBatchNote({ failed: 1, results: [failing, changed] }, false)).toBe("");
  });

  it("says for how many of the failed rows it was rejected when others only went with it", () => {
    const report = { rejected: true, failed: 3, results: [withIt, failing, withIt] };
    expect(rejectedBatchNote(report, false)).toBe(
      " (the atomic batch was rejected for 1 of them: nothing was changed)",
    );
    expect(rejectedBatchNote(report, true)).toBe(
      " (the atomic batch would be rejected for 1 of them: nothing would change)",
    );
  });

  it("says it plainly when every failed row failed for a reason of its own", () => {
    const report = { rejected: true, failed: 2, results: [failing, failing] };
    expect(rejectedBatchNote(report, false)).toBe(
      " (the atomic batch was rejected: nothing was changed)",
    );
  });
});
