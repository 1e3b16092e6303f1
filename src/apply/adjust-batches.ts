/**
 * `inventory adjust --file`'s rows to the batch loop (batches.ts): every row of the file as a
 * relative change with its ref, in file order; what became of each row.
 */
import type { BatchChangeResult } from "../api/types.js";
import type { InterruptSignal } from "../exit-codes.js";
import { outcomeFailure, REJECTED_WITH_BATCH } from "./batch-outcomes.js";
import { type BatchRunReport, reportBeforeSending, type RowAdapter } from "./batches.js";
import { batchChangeOf, type DeltaRow } from "./deltas.js";
import type { RowFailure } from "./row-failure.js";

/**
 * `duplicate`: a change with this row's ref was applied to the pet before (an earlier run of
 * the file): nothing changed now. `unchanged` is counted with it (the server's count).
 * `not_attempted`: never sent (interrupted, or the server kept failing); not a failure.
 */
export const ADJUST_OUTCOMES = [
  "changed",
  "duplicate",
  "unchanged",
  "failed",
  "not_attempted",
] as const;
export type AdjustOutcome = (typeof ADJUST_OUTCOMES)[number];

/** What happened to one row of the file. */
export interface AdjustRowResult {
  row: DeltaRow;
  outcome: AdjustOutcome;
  /** The pet's quantity before the change (null when unknown: no such pet, not sent). */
  previous: number | null;
  /** After the change, or now when it was not applied (null when unknown). */
  quantity: number | null;
  /** Why the row failed, or (`not_attempted`) why it was not sent. */
  failure?: RowFailure | undefined;
}

/** An `adjust --file` run's report; its `unchanged` counts rows already applied (`duplicate`). */
export type AdjustReport = BatchRunReport<AdjustRowResult>;

/** The report row of a change from its batch result (`rejected`: in a rejected atomic batch). */
export function adjustRowResult(
  row: DeltaRow,
  result: BatchChangeResult,
  rejected: boolean,
): AdjustRowResult {
  const { previous, quantity } = result;
  switch (result.outcome) {
    case "changed":
      return rejected
        ? { row, outcome: "failed", previous, quantity, failure: REJECTED_WITH_BATCH }
        : { row, outcome: "changed", previous, quantity };
    case "duplicate":
    case "unchanged":
      return { row, outcome: result.outcome, previous, quantity };
    default:
      return {
        row,
        outcome: "failed",
        previous,
        quantity,
        failure: outcomeFailure(result, row.delta),
      };
  }
}

/** Adjust's rows to the batch loop: every row is sent, with its ref. */
export const ADJUST_ROWS: RowAdapter<DeltaRow, AdjustRowResult> = {
  change: batchChangeOf,
  // Never asked: every row sends a change.
  unchanged: (row) => ({ row, outcome: "unchanged", previous: null, quantity: null }),
  settled: adjustRowResult,
  failed: (row, failure) => ({ row, outcome: "failed", previous: null, quantity: null, failure }),
  notAttempted: (row, failure) => ({
    row,
    outcome: "not_attempted",
    previous: null,
    quantity: null,
    failure,
  }),
  isFailure: (result) => result.outcome === "failed",
};

/**
 * The report of a run interrupted before any row was sent: every row not attempted; no rows
 * at all when the file was not read to its end.
 */
export function adjustReportBeforeSending(
  rows: readonly DeltaRow[] | undefined,
  signal: InterruptSignal,
): AdjustReport {
  return reportBeforeSending(rows, signal, ADJUST_ROWS.notAttempted);
}
