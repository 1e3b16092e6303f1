/**
 * The clock and the pause a request's waits are measured by: the change feed's long poll
 * (routes/inventory-changes.ts) and the readiness probe's store time-out (routes/health.ts).
 * The server runs on REAL_TIMER; a test passes one it moves itself (buildApp's `timer`), as the
 * SQLite store takes a `now`, so a timing rule is proved exactly and without waiting.
 */
import { setTimeout as sleep } from "node:timers/promises";

export interface Timer {
  /** Milliseconds on a monotonic clock (only differences mean anything). */
  now(): number;
  /** Resolves `ms` milliseconds from now; rejects at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const REAL_TIMER: Timer = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleep(ms, undefined, signal ? { signal } : {}),
};
