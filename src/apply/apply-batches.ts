/**
 * Carries out an apply plan through the batch endpoint: the rows that differ, in requests of
 * up to BATCH_SIZE changes (or one atomic request), each conditional on the quantity the run
 * read unless forced; every row's result in file order.
 */
import type { BatchChange, BatchResponse } from "../api/types.js";
import type { ApiError } from "../client/errors.js";
import type { InterruptSignal } from "../exit-codes.js";
import { applyRowResult } from "./batch-outcomes.js";
import { BATCH_SIZE } from "./batch-size.js";
import { reportBeforeSending, reportOfRun, sendInBatches } from "./batches.js";
import type { ApplyReport, RowResult } from "./execute.js";
import type { CountRow } from "./counts.js";
import type { ApplyPlan, PlannedRow } from "./plan.js";

export interface BatchApplyOptions {
  /** Sends one batch of changes (atomic, dry run and reason already decided). */
  send: (changes: BatchChange[]) => Promise<BatchResponse>;
  /** All the changes in one request, applied all or none. */
  atomic: boolean;
  /** Leave out `ifQuantity`: write over whatever the entry holds by then. */
  force: boolean;
  /** Called after each request with how many changes it settled and how many failed. */
  onProgress?: ((settled: number, failed: number) => void) | undefined;
  /** Asked before each request: the signal that interrupted the run, if one did. */
  interruptedBy?: (() => string | undefined) | undefined;
}

/** The change a planned row sends: conditional on what the run read, unless forced. */
export function plannedChange(row: PlannedRow, force: boolean): BatchChange {
  // A pet the list did not show has no quantity to keep: the server decides (not_found).
  return force || row.previous === undefined
    ? { petId: row.petId, quantity: row.desired }
    : { petId: row.petId, quantity: row.desired, ifQuantity: row.previous };
}

function unchanged(row: PlannedRow): RowResult {
  return { petId: row.petId, previous: row.previous, desired: row.desired, outcome: "unchanged" };
}

/**
 * Sends the plan's changes and reports every row, or says that the server has no batch route
 * (then nothing was applied). A failure of the first request is thrown as it is.
 */
export async function applyPlanInBatches(
  plan: ApplyPlan,
  options: BatchApplyOptions,
): Promise<ApplyReport | { kind: "no_batch_route"; error: ApiError }> {
  const results = new Array<RowResult>(plan.rows.length);
  const changing: number[] = [];
  plan.rows.forEach((row, index) => {
    if (row.change) changing.push(index);
    else results[index] = unchanged(row);
  });
  const rowAt = (change: number) => {
    const index = changing[change] ?? -1;
    return { index, row: plan.rows[index] as PlannedRow };
  };
  // An object, so that the final read is not narrowed to false.
  const state = { rejected: false };
  const end = await sendInBatches({
    count: changing.length,
    size: options.atomic ? changing.length : BATCH_SIZE,
    changes: (start, stop) => {
      const changes: BatchChange[] = [];
      for (let change = start; change < stop; change += 1) {
        changes.push(plannedChange(rowAt(change).row, options.force));
      }
      return changes;
    },
    send: options.send,
    onResults: (start, batchResults, batchRejected) => {
      state.rejected ||= batchRejected;
      let failed = 0;
      batchResults.forEach((result, offset) => {
        const { index, row } = rowAt(start + offset);
        const settled = applyRowResult(row, result, batchRejected);
        if (settled.outcome === "failed" || settled.outcome === "conflict") failed += 1;
        results[index] = settled;
      });
      options.onProgress?.(batchResults.length, failed);
    },
    onFailure: (start, stop, failure) => {
      for (let change = start; change < stop; change += 1) {
        const { index, row } = rowAt(change);
        results[index] = {
          petId: row.petId,
          previous: row.previous,
          desired: row.desired,
          outcome: "failed",
          failure,
        };
      }
      options.onProgress?.(stop - start, stop - start);
    },
    onNotAttempted: (start, stop, reason) => {
      for (let change = start; change < stop; change += 1) {
        const { index, row } = rowAt(change);
        results[index] = {
          petId: row.petId,
          previous: row.previous,
          desired: row.desired,
          outcome: "not_attempted",
          failure: { reason },
        };
      }
    },
    interruptedBy: options.interruptedBy,
  });
  if (end.kind === "no_batch_route") return end;
  return reportOfRun(results, (result) => result.outcome !== "unchanged", end, state.rejected);
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
