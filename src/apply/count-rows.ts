/**
 * Counts to the batch loop (batches.ts): each a pet's count as of the feed seq its shelf was
 * counted at, which the server adds every later movement of that pet to. A count session and
 * `apply --as-of` post them; each carries a ref, so posting it again changes nothing.
 */
import type { BatchChange, BatchChangeResult } from "../api/types.js";
import { outcomeFailure, REJECTED_WITH_BATCH } from "./batch-outcomes.js";
import type { RowAdapter } from "./batches.js";
import type { RowFailure } from "./row-failure.js";

/** One pet's count, to post. */
export interface CountChange {
  petId: bigint;
  counted: number;
  /** The feed seq the count is true as of. */
  asOf: bigint;
  ref: string;
  /** Where the count came from, for messages: `line 4` of a file; undefined in a session. */
  location?: string | undefined;
}

/**
 * `duplicate`: this count (its ref) was posted before; nothing changed now. `not_attempted`:
 * never sent (interrupted, or the server kept failing).
 */
export type CountOutcome = "changed" | "unchanged" | "duplicate" | "failed" | "not_attempted";

/** What became of one count: the server's book, movements since and quantity now. */
export interface CountResult {
  count: CountChange;
  outcome: CountOutcome;
  /** The quantity as of `asOf` (null when unknown: not sent, no such pet). */
  book: number | null;
  /** The net of the pet's changes after `asOf`. */
  since: number | null;
  /** The pet's quantity after the count (now, when it was not applied). */
  now: number | null;
  /** counted − book. */
  variance: number | null;
  failure?: RowFailure | undefined;
}

/** The change a count sends. */
export function countChangeOf(count: CountChange): BatchChange {
  return { petId: count.petId, count: count.counted, asOf: count.asOf, ref: count.ref };
}

function unknown(count: CountChange, outcome: CountOutcome, failure?: RowFailure): CountResult {
  return { count, outcome, book: null, since: null, now: null, variance: null, failure };
}

/** The result of a count from the server's (`rejected`: in a rejected atomic batch). */
export function countResult(
  count: CountChange,
  result: BatchChangeResult,
  rejected: boolean,
): CountResult {
  const book = result.book ?? null;
  const since = result.since ?? null;
  const variance = result.variance ?? null;
  const now = result.quantity;
  switch (result.outcome) {
    case "changed":
      return rejected
        ? { count, outcome: "failed", book, since, now, variance, failure: REJECTED_WITH_BATCH }
        : { count, outcome: "changed", book, since, now, variance };
    case "unchanged":
    case "duplicate":
      return { count, outcome: result.outcome, book, since, now, variance };
    default:
      return {
        count,
        outcome: "failed",
        book,
        since,
        now,
        variance,
        failure: outcomeFailure(result),
      };
  }
}

/** Counts to the batch loop: every count is sent. */
export const COUNT_ROWS: RowAdapter<CountChange, CountResult> = {
  change: countChangeOf,
  // Never asked: every count sends a change.
  unchanged: (count) => unknown(count, "unchanged"),
  settled: countResult,
  failed: (count, failure) => unknown(count, "failed", failure),
  notAttempted: (count, failure) => unknown(count, "not_attempted", failure),
  isFailure: (result) => result.outcome === "failed",
};
