/**
 * What each outcome of a batch change means for a row of a run: applied, unchanged, or failed
 * with a reason in words and the server's word for it (`code`).
 */
import { MAX_QUANTITY } from "../api/limits.js";
import type { BatchChangeResult } from "../api/types.js";
import type { RowResult } from "./execute.js";
import type { PlannedRow } from "./plan.js";
import type { RowFailure } from "./row-failure.js";

/** The failure of a row that was fine but in an atomic batch that was rejected. */
export const REJECTED_WITH_BATCH: RowFailure = {
  reason: "not applied: the batch was atomic and other rows failed",
  code: "batch_rejected",
  batchRejected: true,
};

function signed(delta: number): string {
  return delta > 0 ? `+${delta}` : String(delta);
}

/**
 * Why a change failed, from its result: undefined for `changed`, `unchanged` and `duplicate`.
 * `delta` (for a relative change) lets the reason say what the change would have made.
 */
export function outcomeFailure(result: BatchChangeResult, delta?: number): RowFailure | undefined {
  const { outcome, quantity } = result;
  const would =
    delta === undefined || quantity === null
      ? ""
      : ` (it holds ${quantity}: ${signed(delta)} would make it ${quantity + delta})`;
  switch (outcome) {
    case "changed":
    case "unchanged":
    case "duplicate":
      return undefined;
    case "conflict":
      return {
        reason:
          quantity === null
            ? "changed since it was read; not overwritten"
            : `changed to ${quantity} since it was read; not overwritten`,
        code: outcome,
      };
    case "not_found":
      return { reason: "no such pet", code: outcome };
    case "below_zero":
      return { reason: `would go below 0${would}`, code: outcome };
    case "too_large":
      return { reason: `would go above ${MAX_QUANTITY}${would}`, code: outcome };
  }
}

/**
 * The report row of an apply's planned change from its batch result. The quantity before is
 * the server's (what the entry really held when the change was applied) when it says, else
 * what the run read. In a rejected atomic batch nothing was applied: a change that would have
 * been is failed as REJECTED_WITH_BATCH.
 */
export function applyRowResult(
  row: PlannedRow,
  result: BatchChangeResult,
  rejected: boolean,
): RowResult {
  // Object literals with the fields in one order, never spreads: a spread of 100,000 rows
  // gave each result a hidden class of its own (20 MB of them).
  const { petId, desired } = row;
  const previous = result.previous ?? row.previous;
  switch (result.outcome) {
    case "changed":
      return rejected
        ? { petId, previous, desired, outcome: "failed", failure: REJECTED_WITH_BATCH }
        : { petId, previous, desired, outcome: "changed" };
    case "unchanged":
    case "duplicate":
      return { petId, previous, desired, outcome: "unchanged" };
    case "conflict":
      return {
        petId,
        previous: row.previous,
        desired,
        outcome: "conflict",
        failure: outcomeFailure(result),
        current: result.quantity ?? undefined,
      };
    default:
      return { petId, previous, desired, outcome: "failed", failure: outcomeFailure(result) };
  }
}
