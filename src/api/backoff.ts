/**
 * The one back-off rule of every retry loop: the CLI's retries of a call, `adjust`'s rounds
 * after a conflict, and the server's waits for a SQLite lock another process holds.
 */

/** Where a back-off starts and where it stops growing, in milliseconds. */
export interface BackoffSteps {
  /** The step of the first retry. */
  readonly baseMs: number;
  /** The largest step: doubling stops here. */
  readonly maxMs: number;
}

/**
 * The pause before retry number `retry` (1 for the first), in whole milliseconds: exponential
 * with "equal jitter". The step is `baseMs * 2 ** (retry - 1)`, at most `maxMs`; the pause is
 * half the step plus a random part (`random()`, from [0, 1)) of the other half, so callers
 * that failed together do not retry in lockstep, yet none retries at once.
 */
export function backoffPause(steps: BackoffSteps, retry: number, random: () => number): number {
  const step = Math.min(steps.maxMs, steps.baseMs * 2 ** (retry - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}
