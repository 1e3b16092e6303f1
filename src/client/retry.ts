/**
 * Retries of one API call: the back-off between attempts (src/api/backoff.ts), or longer when
 * the server's `Retry-After` asks for it.
 */
import { backoffPause, type BackoffSteps } from "../api/backoff.js";
import { ApiError, NetworkError, type ClientFailure, type NetworkFailure } from "./errors.js";

/** The back-off between attempts of a call: from 0.5 s, doubling up to 8 s. */
const CALL_BACKOFF: BackoffSteps = { baseMs: 500, maxMs: 8_000 };
/** A server's `Retry-After` is honoured up to this long, so a job never hangs for hours. */
export const RETRY_AFTER_CAP_MS = 30_000;

/** HTTP statuses worth another attempt: rate limited or a gateway/server hiccup. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Failures below HTTP that another attempt would meet again, so never retried: the server's
 * certificate, and an https URL at a server that speaks plain HTTP.
 */
export const LASTING_NETWORK_FAILURES: ReadonlySet<NetworkFailure> = new Set([
  "untrusted-certificate",
  "plain-http",
]);

/** One failed attempt: the error to report if it is the last, and whether to try again. */
export class FailedAttempt extends Error {
  readonly failure: ClientFailure;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(failure: ClientFailure, retryable: boolean, retryAfterMs?: number) {
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

/** The wait before retry number `retryNumber` (1-based): the backoff, or longer if the server asked. */
export function retryDelay(
  retryNumber: number,
  retryAfterMs: number | undefined,
  random: () => number,
): number {
  const backoff = backoffPause(CALL_BACKOFF, retryNumber, random);
  if (retryAfterMs === undefined) return backoff;
  return Math.max(backoff, Math.min(retryAfterMs, RETRY_AFTER_CAP_MS));
}

/**
 * Runs `attempt` until it succeeds, throws a non-retryable FailedAttempt, or the retries
 * are spent; rejects with the last attempt's ClientFailure. Anything but a FailedAttempt is
 * passed through at once, untouched.
 */
export async function withRetries<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  policy: RetryPolicy,
): Promise<T> {
  // Whether a failed attempt may have reached the server: the last failure alone (a refused
  // connection once the server went down) would say it never did.
  let reached = false;
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt(attemptNumber);
    } catch (error) {
      if (!(error instanceof FailedAttempt)) throw error;
      if (!error.retryable || attemptNumber > policy.retries) {
        if (error.failure instanceof NetworkError || error.failure instanceof ApiError) {
          error.failure.earlierAttemptMayHaveReached = reached;
        }
        throw error.failure;
      }
      if (error.failure instanceof NetworkError && error.failure.mayHaveReachedServer()) {
        reached = true;
      }
      const delayMs = retryDelay(attemptNumber, error.retryAfterMs, policy.random);
      policy.onRetry?.({ nextAttempt: attemptNumber + 1, delayMs, reason: error.message });
      await policy.sleep(delayMs);
    }
  }
}
