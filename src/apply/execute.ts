/**
 * Carries out an apply plan: PATCHes the rows that differ with bounded concurrency, and turns
 * every outcome into a result in file order. A failing row fails alone; the run goes on.
 */
import pLimit from "p-limit";
import { isPreconditionFailed, quantityOfETag } from "../client/etag.js";
import { countOf } from "../text/plural.js";
import type { BatchRunReport } from "./batches.js";
import type { ApplyPlan, PlannedRow } from "./plan.js";
import { describeRowFailure, isServerWideFailure, type RowFailure } from "./row-failure.js";

/**
 * `conflict`: the entry no longer held the quantity the run read (412), so it was not
 * overwritten. A conflict is a failed row: the report's `failed` count includes it.
 * `not_attempted`: the row was never sent (the run was interrupted, or the server kept
 * failing): not a failure, counted apart.
 */
export const ROW_OUTCOMES = [
  "changed",
  "unchanged",
  "failed",
  "conflict",
  "not_attempted",
] as const;
export type RowOutcome = (typeof ROW_OUTCOMES)[number];

/** What happened to one row. */
export interface RowResult {
  petId: bigint;
  /** The quantity before the run; undefined when the inventory did not list the pet. */
  previous: number | undefined;
  desired: number;
  outcome: RowOutcome;
  /** Why a row failed, or (`not_attempted`) why it was not sent. */
  failure?: RowFailure | undefined;
  /** For a conflict: the quantity the entry held instead, when the server said. */
  current?: number | undefined;
}

/** The outcome of a whole run: counts, then every row in file order. */
export type ApplyReport = BatchRunReport<RowResult>;

/**
 * After this many server-wide failures in a row (each already retried), the server is taken to
 * be down: the remaining rows are not attempted, so a dead server does not cost minutes of
 * retries per row. A re-run picks them up.
 */
export const STOP_AFTER_SERVER_FAILURES = 10;

export interface ExecuteOptions {
  /**
   * Sets one pet's stock (the client's PATCH, with its retries), conditional on `previous`,
   * the quantity the run read, unless the run is forced; a 412 makes the row a conflict.
   */
  update: (petId: bigint, quantity: number, previous: number | undefined) => Promise<unknown>;
  /** At most this many PATCHes in flight. */
  concurrency: number;
  /** Called as each changed row settles, sent or not attempted (for progress). */
  onSettled?: ((result: RowResult) => void) | undefined;
  stopAfterServerFailures?: number | undefined;
  /**
   * Asked before each PATCH starts: the name of the signal that interrupted the run, if one
   * did. From then on no PATCH starts; those in flight finish, the rest are not attempted.
   */
  interruptedBy?: (() => string | undefined) | undefined;
}

/**
 * A dry run against a server without the batch endpoint, from the stock the run read alone
 * (the server is not asked): a row that differs would change, and one whose pet the inventory
 * did not list would fail, as its PATCH would: the inventory lists every pet in the store.
 */
export function dryRunOfPlan(plan: ApplyPlan): ApplyReport {
  const results = plan.rows.map((row): RowResult => {
    const result = { petId: row.petId, previous: row.previous, desired: row.desired };
    if (!row.change) return { ...result, outcome: "unchanged" };
    if (row.previous === undefined) {
      return {
        ...result,
        outcome: "failed",
        failure: { reason: "no such pet: not in the inventory the server listed" },
      };
    }
    return { ...result, outcome: "changed" };
  });
  const count = (outcome: RowOutcome) => results.filter((row) => row.outcome === outcome).length;
  return {
    changed: count("changed"),
    unchanged: count("unchanged"),
    failed: count("failed"),
    notAttempted: 0,
    results,
  };
}

/** Applies the plan's changes and reports every row. */
export async function executePlan(plan: ApplyPlan, options: ExecuteOptions): Promise<ApplyReport> {
  const limit = pLimit(options.concurrency);
  const stopAfter = options.stopAfterServerFailures ?? STOP_AFTER_SERVER_FAILURES;
  // Shared by the rows in flight; an object so that the final read is not narrowed to false.
  const state: {
    serverFailuresInARow: number;
    stopped: boolean;
    /** The failure that stopped the run, once one did. */
    stoppedBy?: RowFailure | undefined;
    /** PATCHes started: none when the interrupt came before the first. */
    started: number;
    interruptedBy?: string | undefined;
  } = {
    serverFailuresInARow: 0,
    stopped: false,
    started: 0,
  };

  const result = (row: PlannedRow, outcome: RowOutcome, failure?: RowFailure): RowResult => ({
    petId: row.petId,
    previous: row.previous,
    desired: row.desired,
    outcome,
    ...(failure === undefined ? {} : { failure }),
  });

  async function applyRow(row: PlannedRow): Promise<RowResult> {
    let settled: RowResult;
    state.interruptedBy ??= options.interruptedBy?.();
    if (state.interruptedBy !== undefined) {
      settled = result(row, "not_attempted", {
        reason: `not attempted: interrupted by ${state.interruptedBy}; run again to apply it`,
      });
    } else if (state.stopped) {
      settled = result(row, "not_attempted", {
        reason: `not attempted: the server kept failing (${countOf(stopAfter, "change")} in a row failed); run again later`,
      });
    } else {
      state.started += 1;
      try {
        await options.update(row.petId, row.desired, row.previous);
        state.serverFailuresInARow = 0;
        settled = result(row, "changed");
      } catch (error) {
        if (isPreconditionFailed(error)) {
          state.serverFailuresInARow = 0;
          const current = quantityOfETag(error.etag);
          settled = {
            ...result(row, "conflict", describeRowFailure(error)),
            ...(current === undefined ? {} : { current }),
          };
          options.onSettled?.(settled);
          return settled;
        }
        const failure = describeRowFailure(error);
        if (isServerWideFailure(error)) {
          state.serverFailuresInARow += 1;
          if (state.serverFailuresInARow >= stopAfter) {
            state.stopped = true;
            state.stoppedBy ??= failure;
          }
        } else {
          state.serverFailuresInARow = 0;
        }
        settled = result(row, "failed", failure);
      }
    }
    options.onSettled?.(settled);
    return settled;
  }

  const results = await Promise.all(
    plan.rows.map((row) =>
      row.change ? limit(() => applyRow(row)) : Promise.resolve(result(row, "unchanged")),
    ),
  );
  const count = (outcome: RowOutcome) => results.filter((row) => row.outcome === outcome).length;
  return {
    changed: count("changed"),
    unchanged: count("unchanged"),
    failed: count("failed") + count("conflict"),
    notAttempted: count("not_attempted"),
    results,
    ...(state.stopped ? { stoppedAfter: stopAfter, stoppedBy: state.stoppedBy } : {}),
    ...(state.interruptedBy === undefined
      ? {}
      : {
          interruptedBy: state.interruptedBy,
          interruptedDuring: state.started === 0 ? ("preparing" as const) : ("sending" as const),
        }),
  };
}
