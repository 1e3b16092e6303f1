/**
 * Carries out `inventory adjust --file` through the batch endpoint: every row of the file as a
 * relative change with its ref, in file order, in requests of up to BATCH_SIZE changes (or one
 * atomic request); the report of what became of each row.
 */
import type { BatchChange, BatchChangeResult, BatchResponse } from "../api/types.js";
import type { ApiError } from "../client/errors.js";
import type { InterruptSignal } from "../exit-codes.js";
import { outcomeFailure, REJECTED_WITH_BATCH } from "./batch-outcomes.js";
import { BATCH_SIZE } from "./batch-size.js";
import { type BatchRunReport, reportBeforeSending, reportOfRun, sendInBatches } from "./batches.js";
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

export interface AdjustBatchOptions {
  /** Sends one batch of changes (atomic, dry run and reason already decided). */
  send: (changes: BatchChange[]) => Promise<BatchResponse>;
  /** All the rows in one request, applied all or none. */
  atomic: boolean;
  /** Called after each request with how many changes it settled and how many failed. */
  onProgress?: ((settled: number, failed: number) => void) | undefined;
  /** Asked before each request: the signal that interrupted the run, if one did. */
  interruptedBy?: (() => string | undefined) | undefined;
}

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

/**
 * Sends every row and reports each, or says that the server has no batch route (then nothing
 * was applied). A failure of the first request is thrown as it is.
 */
export async function adjustInBatches(
  rows: readonly DeltaRow[],
  options: AdjustBatchOptions,
): Promise<AdjustReport | { kind: "no_batch_route"; error: ApiError }> {
  const results = new Array<AdjustRowResult>(rows.length);
  // An object, so that the final read is not narrowed to false.
  const state = { rejected: false };
  const end = await sendInBatches({
    count: rows.length,
    size: options.atomic ? rows.length : BATCH_SIZE,
    changes: (start, stop) => {
      const changes: BatchChange[] = [];
      for (let index = start; index < stop; index += 1) {
        const row = rows[index] as DeltaRow;
        changes.push(batchChangeOf(row));
      }
      return changes;
    },
    send: options.send,
    onResults: (start, batchResults, batchRejected) => {
      state.rejected ||= batchRejected;
      let failed = 0;
      batchResults.forEach((result, offset) => {
        const settled = adjustRowResult(rows[start + offset] as DeltaRow, result, batchRejected);
        if (settled.outcome === "failed") failed += 1;
        results[start + offset] = settled;
      });
      options.onProgress?.(batchResults.length, failed);
    },
    onFailure: (start, stop, failure) => {
      for (let index = start; index < stop; index += 1) {
        const row = rows[index] as DeltaRow;
        results[index] = { row, outcome: "failed", previous: null, quantity: null, failure };
      }
      options.onProgress?.(stop - start, stop - start);
    },
    onNotAttempted: (start, stop, reason) => {
      for (let index = start; index < stop; index += 1) {
        const row = rows[index] as DeltaRow;
        results[index] = {
          row,
          outcome: "not_attempted",
          previous: null,
          quantity: null,
          failure: { reason },
        };
      }
    },
    interruptedBy: options.interruptedBy,
  });
  if (end.kind === "no_batch_route") return end;
  return reportOfRun(results, (result) => result.outcome === "failed", end, state.rejected);
}

/**
 * The report of a run interrupted before any row was sent: every row not attempted; no rows
 * at all when the file was not read to its end.
 */
export function adjustReportBeforeSending(
  rows: readonly DeltaRow[] | undefined,
  signal: InterruptSignal,
): AdjustReport {
  return reportBeforeSending(rows, signal, (row, failure) => ({
    row,
    outcome: "not_attempted",
    previous: null,
    quantity: null,
    failure,
  }));
}
