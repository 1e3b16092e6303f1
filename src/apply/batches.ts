/**
 * Sends a list of changes through the batch endpoint, one request at a time, in requests of
 * up to `size` changes, and hands every change's result (or failure) to the caller in order.
 * The one loop behind `inventory apply` and `inventory adjust --file`: the fallback decision,
 * interruptions and a failing server are decided here once.
 */
import type { BatchChange, BatchChangeResult, BatchResponse } from "../api/types.js";
import { BatchRejectedError, isMissingBatchRoute } from "../client/batch-errors.js";
import type { ApiError } from "../client/errors.js";
import type { InterruptSignal } from "../exit-codes.js";
import { BATCH_SIZE } from "./batch-size.js";
import { describeRowFailure, isServerWideFailure, type RowFailure } from "./row-failure.js";

/**
 * When an interrupt stopped a run: while the file was read (its rows are not known), after it
 * was read but before any change was sent, or once some were.
 */
export type InterruptedPhase = "reading" | "preparing" | "sending";

/** How a run of batches ended. */
export type BatchRunEnd =
  /** Every change got a result, a failure, or was not attempted. */
  | {
      kind: "sent";
      /** The signal that stopped the run from sending more requests, if one did. */
      interruptedBy?: string | undefined;
      /** When it did: before the first request ("preparing"), or after some ("sending"). */
      interruptedDuring?: InterruptedPhase | undefined;
      /** Why the run stopped sending requests: a request failed as the server does. */
      stoppedBy?: RowFailure | undefined;
    }
  /**
   * The server answered the first request 404 or 405: it has no batch route, and nothing was
   * sent that it applied; the caller may send the changes another way.
   */
  | { kind: "no_batch_route"; error: ApiError };

export interface BatchRunOptions {
  /** How many changes in all. */
  count: number;
  /** Changes per request (BATCH_SIZE; all of them for an atomic run). */
  size: number;
  /** The changes from `start` to `end` (exclusive), made when their request is about to go. */
  changes: (start: number, end: number) => BatchChange[];
  /** Sends one request (the client's applyBatch, with its Idempotency-Key and retries). */
  send: (changes: BatchChange[]) => Promise<BatchResponse>;
  /** The requests are dry runs: nothing they carry is ever applied. */
  dryRun?: boolean | undefined;
  /**
   * The results of the changes from `start` on, one per change in order; `rejected` when the
   * batch was atomic and rejected (409): nothing of it was written.
   */
  onResults: (start: number, results: readonly BatchChangeResult[], rejected: boolean) => void;
  /** The changes from `start` to `end` got no result: their request failed. */
  onFailure: (start: number, end: number, failure: RowFailure) => void;
  /**
   * The changes from `start` to `end` were never sent (interrupted, or the server kept
   * failing): `reason` says which, in words for the report.
   */
  onNotAttempted: (start: number, end: number, reason: string) => void;
  /**
   * Asked before each request: the signal that interrupted the run, if one did. From then on
   * no request starts; the one in flight finishes, the rest are not attempted.
   */
  interruptedBy?: (() => string | undefined) | undefined;
}

/**
 * Sends the changes in order. The first request decides the rest: a 404 or 405 to it means
 * the server has no batch route (`no_batch_route`, nothing applied); any other failure of it
 * is thrown as it is (nothing was applied, so the error is the answer: exit 3, 4, 6 ...), but
 * one that may have been applied (no answer), which fails its changes as a later request's
 * does. A later request's failure fails its changes; when it says the server is failing
 * (unreachable, 5xx, 401, 403, after the client's retries), the rest are not attempted.
 */
export async function sendInBatches(options: BatchRunOptions): Promise<BatchRunEnd> {
  const { count, size } = options;
  for (let start = 0; start < count; start += size) {
    const end = Math.min(start + size, count);
    const interruptedBy = options.interruptedBy?.();
    if (interruptedBy !== undefined) {
      options.onNotAttempted(
        start,
        count,
        `not attempted: interrupted by ${interruptedBy}; run again to apply it`,
      );
      return {
        kind: "sent",
        interruptedBy,
        interruptedDuring: start === 0 ? "preparing" : "sending",
      };
    }
    let response: BatchResponse;
    try {
      response = await options.send(options.changes(start, end));
    } catch (error) {
      if (error instanceof BatchRejectedError) {
        options.onResults(start, error.results, true);
        continue;
      }
      // A dry run writes nothing, whether its request was answered or not.
      const failure = describeRowFailure(error, { dryRun: options.dryRun === true });
      // The first request's failure is the answer (exit 3, 4, 6 …), but for one that may have
      // been applied: its rows are reported so, as a later request's are.
      if (start === 0 && failure.unanswered !== true) {
        if (isMissingBatchRoute(error)) return { kind: "no_batch_route", error };
        throw error;
      }
      options.onFailure(start, end, failure);
      if (isServerWideFailure(error)) {
        if (end < count) {
          options.onNotAttempted(
            end,
            count,
            "not attempted: the server kept failing; run again later",
          );
        }
        return { kind: "sent", stoppedBy: failure };
      }
      continue;
    }
    options.onResults(start, response.results, false);
  }
  return { kind: "sent" };
}

/** What a finished run of batches reports, whatever its rows are (apply's or adjust's). */
export interface BatchRunReport<R> {
  changed: number;
  unchanged: number;
  /** Rows sent and not applied. */
  failed: number;
  /** Rows never sent (outcome `not_attempted`): not failures. */
  notAttempted: number;
  results: R[];
  /** Set when the run stopped sending batches because a batch request failed as a server does. */
  stoppedBy?: RowFailure | undefined;
  /**
   * Set when the one-PATCH-per-row sender (execute.ts) stopped starting PATCHes because the
   * server kept failing: after this many failures in a row.
   */
  stoppedAfter?: number | undefined;
  /** The signal (SIGINT, SIGTERM) that stopped the run, if one did. */
  interruptedBy?: string | undefined;
  /** When the interrupt came, if one did (`reading`: `results` is empty, the rows unknown). */
  interruptedDuring?: InterruptedPhase | undefined;
  /** The run was one atomic batch and the server rejected it: nothing was changed. */
  rejected?: true | undefined;
}

/**
 * The report of a run interrupted before anything was sent: every row read not attempted
 * (`notAttempted` gives each its result), or no rows at all when the file was not read to its
 * end (`rows` undefined: `interruptedDuring` is `reading`).
 */
export function reportBeforeSending<Row, R>(
  rows: readonly Row[] | undefined,
  signal: InterruptSignal,
  notAttempted: (row: Row, failure: RowFailure) => R,
): BatchRunReport<R> {
  const failure = {
    reason: `not attempted: interrupted by ${signal} before anything was sent; run again to apply it`,
  };
  return {
    changed: 0,
    unchanged: 0,
    failed: 0,
    notAttempted: rows?.length ?? 0,
    results: (rows ?? []).map((row) => notAttempted(row, failure)),
    interruptedBy: signal,
    interruptedDuring: rows === undefined ? "reading" : "preparing",
  };
}

/**
 * Counts a sent run's results (`changed`, `not_attempted`, the failures `isFailure` picks,
 * the rest unchanged) and carries what stopped or interrupted it.
 */
export function reportOfRun<R extends { outcome: string }>(
  results: R[],
  isFailure: (result: R) => boolean,
  end: Extract<BatchRunEnd, { kind: "sent" }>,
  rejected: boolean,
): BatchRunReport<R> {
  let changed = 0;
  let failed = 0;
  let notAttempted = 0;
  for (const result of results) {
    if (result.outcome === "changed") changed += 1;
    else if (result.outcome === "not_attempted") notAttempted += 1;
    else if (isFailure(result)) failed += 1;
  }
  return {
    changed,
    unchanged: results.length - changed - failed - notAttempted,
    failed,
    notAttempted,
    results,
    ...(end.stoppedBy === undefined ? {} : { stoppedBy: end.stoppedBy }),
    ...(end.interruptedBy === undefined
      ? {}
      : { interruptedBy: end.interruptedBy, interruptedDuring: end.interruptedDuring }),
    ...(rejected ? { rejected: true as const } : {}),
  };
}

/**
 * What one verb's rows are to the batch loop (apply's planned rows, adjust's deltas, count's
 * counts): the change each sends and the result each gets. The loop, its fallback decision,
 * interrupts and failures are the same for all; only this differs.
 */
export interface RowAdapter<Row, R extends { outcome: string }> {
  /** The change a row sends; undefined when it needs none (`unchanged` is then its result). */
  change: (row: Row) => BatchChange | undefined;
  unchanged: (row: Row) => R;
  /** Its result from the server's (`rejected`: in an atomic batch the server rejected). */
  settled: (row: Row, result: BatchChangeResult, rejected: boolean) => R;
  /** Sent, and its request failed. */
  failed: (row: Row, failure: RowFailure) => R;
  /** Never sent (interrupted, or the server kept failing); `failure` says why. */
  notAttempted: (row: Row, failure: RowFailure) => R;
  /** Whether a result counts as failed (the report's `failed`, the progress bar's red). */
  isFailure: (result: R) => boolean;
}

export interface SendRowsOptions {
  /** Sends one batch of changes (atomic, dry run and reason already decided). */
  send: (changes: BatchChange[]) => Promise<BatchResponse>;
  /** The batches are dry runs: a failed request never leaves a row that may have been applied. */
  dryRun?: boolean | undefined;
  /** All the changes in one request, applied all or none. */
  atomic: boolean;
  /** Called after each request with how many changes it settled and how many failed. */
  onProgress?: ((settled: number, failed: number) => void) | undefined;
  /** Asked before each request: the signal that interrupted the run, if one did. */
  interruptedBy?: (() => string | undefined) | undefined;
}

/** The outcomes of changes that did not fail themselves (in a rejected batch, failed with it). */
const PASSING_OUTCOMES: ReadonlySet<string> = new Set(["changed", "unchanged", "duplicate"]);

/**
 * The results of a rejected atomic batch, each change that did not fail itself with the
 * quantity its pet holds now (its result says what it would have made): nothing of the batch
 * was written, so a pet holds what the first change to it found, its `previous`. A failing
 * change keeps the server's result, which its reason is worded from.
 */
function asNotApplied(results: readonly BatchChangeResult[]): BatchChangeResult[] {
  const now = new Map<bigint, number | null>();
  for (const result of results) {
    if (!now.has(result.petId)) now.set(result.petId, result.previous);
  }
  return results.map((result) =>
    PASSING_OUTCOMES.has(result.outcome)
      ? { ...result, quantity: now.get(result.petId) ?? null }
      : result,
  );
}

/** The server answered the first request 404 or 405: nothing was applied. */
export interface NoBatchRoute {
  kind: "no_batch_route";
  error: ApiError;
}

/**
 * Sends the rows that need a change, in order, in requests of up to BATCH_SIZE changes (or one
 * atomic request), and reports every row in its place; or says that the server has no batch
 * route (then nothing was applied). A failure of the first request is thrown as it is.
 */
export async function sendRows<Row, R extends { outcome: string }>(
  rows: readonly Row[],
  adapter: RowAdapter<Row, R>,
  options: SendRowsOptions,
): Promise<BatchRunReport<R> | NoBatchRoute> {
  const results = new Array<R>(rows.length);
  // The rows that send a change, by index: each change is made again when its request is about
  // to go, so no more than a request's changes are held at once (100,000 rows of apply).
  const sending: number[] = [];
  rows.forEach((row, index) => {
    if (adapter.change(row) === undefined) results[index] = adapter.unchanged(row);
    else sending.push(index);
  });
  const rowAt = (at: number) => rows[sending[at] ?? -1] as Row;
  const each = (start: number, stop: number, settle: (row: Row) => R) => {
    for (let at = start; at < stop; at += 1) results[sending[at] ?? -1] = settle(rowAt(at));
  };
  // An object, so that the final read is not narrowed to false.
  const state = { rejected: false };
  const end = await sendInBatches({
    count: sending.length,
    size: options.atomic ? sending.length : BATCH_SIZE,
    changes: (start, stop) => {
      const changes: BatchChange[] = [];
      for (let at = start; at < stop; at += 1) {
        changes.push(adapter.change(rowAt(at)) as BatchChange);
      }
      return changes;
    },
    send: options.send,
    dryRun: options.dryRun,
    onResults: (start, answered, rejected) => {
      state.rejected ||= rejected;
      const batchResults = rejected ? asNotApplied(answered) : answered;
      let failed = 0;
      batchResults.forEach((result, offset) => {
        const settled = adapter.settled(rowAt(start + offset), result, rejected);
        if (adapter.isFailure(settled)) failed += 1;
        results[sending[start + offset] ?? -1] = settled;
      });
      options.onProgress?.(batchResults.length, failed);
    },
    onFailure: (start, stop, failure) => {
      each(start, stop, (row) => adapter.failed(row, failure));
      options.onProgress?.(stop - start, stop - start);
    },
    onNotAttempted: (start, stop, reason) => {
      each(start, stop, (row) => adapter.notAttempted(row, { reason }));
    },
    interruptedBy: options.interruptedBy,
  });
  if (end.kind === "no_batch_route") return end;
  return reportOfRun(results, (result) => adapter.isFailure(result), end, state.rejected);
}
