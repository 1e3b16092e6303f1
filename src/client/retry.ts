/**
 * Retries of one API call: p-retry runs the attempts; the delay between them is ours,
 * because it must honour `Retry-After` (exponential backoff with jitter otherwise).
 */
import pRetry from "p-retry";
import type { CliError } from "../errors.js";

/** First backoff step; each retry doubles it, up to BACKOFF_MAX_MS. */
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_MAX_MS = 8_000;
/** A server's `Retry-After` is honoured up to this long, so a job never hangs for hours. */
export const RETRY_AFTER_CAP_MS = 30_000;

/** HTTP statuses worth another attempt: rate limited or a gateway/server hiccup. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** One failed attempt: the error to report if it is the last, and whether to try again. */
export class FailedAttempt extends Error {
  readonly failure: CliError;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(failure: CliError, retryable: boolean, retryAfterMs?: number) {
    super(failure.message);
    this.name = "FailedAttempt";
    this.failure = failure;
    this.retryable = retryable;
    this.retryAfterMs = retryAfterMs;
  }
}

/** How to retry, with the clock and randomness injectable for tests. */
export interface RetryPolicy {
  retries: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  /** Called before waiting for the next attempt (for the --verbose trace). */
  onRetry?: (info: { nextAttempt: number; delayMs: number; reason: string }) => void;
}

/**
 * Parses `Retry-After` (delta-seconds or an HTTP-date) into milliseconds from `now`.
 * Returns undefined when absent or unparseable.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^[0-9]+$/.test(text)) return Number(text) * 1000;
  // An HTTP-date starts with the day name ("Sun, 06 Nov 1994 08:49:37 GMT"); Date.parse
  // alone would also accept "-5" or "1.5".
  if (!/^[A-Za-z]{3,9},? /.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Exponential backoff with "equal jitter": half the step fixed, half random. */
export function backoffDelay(retryNumber: number, random: () => number): number {
  const step = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (retryNumber - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}

/** The wait before retry number `retryNumber` (1-based): the backoff, or longer if the server asked. */
export function retryDelay(
  retryNumber: number,
  retryAfterMs: number | undefined,
  random: () => number,
): number {
  const backoff = backoffDelay(retryNumber, random);
  if (retryAfterMs === undefined) return backoff;
  return Math.max(backoff, Math.min(retryAfterMs, RETRY_AFTER_CAP_MS));
}

/**
 * Runs `attempt` until it succeeds, throws a non-retryable FailedAttempt, or the retries
 * are spent; rejects with the last attempt's CliError.
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  policy: RetryPolicy,
): Promise<T> {
  try {
    return await pRetry(attempt, {
      retries: policy.retries,
      // The waiting happens in onFailedAttempt, where Retry-After is known.
      minTimeout: 0,
      maxTimeout: 0,
      shouldRetry: ({ error }) => error instanceof FailedAttempt && error.retryable,
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (!(error instanceof FailedAttempt) || !error.retryable || retriesLeft <= 0) return;
        const delayMs = retryDelay(attemptNumber, error.retryAfterMs, policy.random);
        policy.onRetry?.({ nextAttempt: attemptNumber + 1, delayMs, reason: error.message });
        await policy.sleep(delayMs);
      },
    });
  } catch (error) {
    if (error instanceof FailedAttempt) throw error.failure;
    throw error;
  }
}
