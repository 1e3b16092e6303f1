/**
 * `inventory apply`'s rows to the batch loop (batches.ts): the rows that differ, each
 * conditional on the quantity the run read unless forced.
 */
import type { BatchChange } from "../api/types.js";
import type { InterruptSignal } from "../exit-codes.js";
import { applyRowResult } from "./batch-outcomes.js";
import { reportBeforeSending, type RowAdapter } from "./batches.js";
import type { ApplyReport, RowOutcome, RowResult } from "./execute.js";
import type { RowFailure } from "./row-failure.js";
import type { CountRow } from "./counts.js";
import type { PlannedRow } from "./plan.js";

/** The change a planned row sends: conditional on what the run read, unless forced. */
export function plannedChange(row: PlannedRow, force: boolean): BatchChange {
  // A pet the list did not show has no quantity to keep: the server decides (not_found).
  return force || row.previous === undefined
    ? { petId: row.petId, quantity: row.desired }
    : { petId: row.petId, quantity: row.desired, ifQuantity: row.previous };
}

function rowResult(row: PlannedRow, outcome: RowOutcome, failure?: RowFailure): RowResult {
  return failure === undefined
    ? { petId: row.petId, previous: row.previous, desired: row.desired, outcome }
    : { petId: row.petId, previous: row.previous, desired: row.desired, outcome, failure };
}

/** A failed row of an apply: failed, or in conflict (the entry no longer held what was read). */
export function isApplyFailure(result: RowResult): boolean {
  return result.outcome === "failed" || result.outcome === "conflict";
}

/** Apply's rows to the batch loop: a planned row sends its change only when it differs. */
export function applyRows(force: boolean): RowAdapter<PlannedRow, RowResult> {
  return {
    change: (row) => (row.change ? plannedChange(row, force) : undefined),
    unchanged: (row) => rowResult(row, "unchanged"),
    settled: applyRowResult,
    failed: (row, failure) => rowResult(row, "failed", failure),
    notAttempted: (row, failure) => rowResult(row, "not_attempted", failure),
    isFailure: isApplyFailure,
  };
}

/**
 * The report of a run interrupted before any change was sent: every row of the file not
 * attempted (the stock was not read, so none is known to be right); no rows at all when the
 * file was not read to its end.
 */
export function applyReportBeforeSending(
  rows: readonly CountRow[] | undefined,
  signal: InterruptSignal,
): ApplyReport {
  return reportBeforeSending(rows, signal, (row, failure) => ({
    petId: row.petId,
    previous: undefined,
    desired: row.quantity,
    outcome: "not_attempted",
    failure,
  }));
}
