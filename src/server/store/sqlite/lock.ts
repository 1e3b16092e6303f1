/**
 * Waiting for another process's lock on a SQLite file without blocking the event loop.
 * better-sqlite3 is synchronous: with a busy timeout SQLite would sleep inside the call and
 * freeze every request. The store's connection has busy_timeout 0, so a locked database fails
 * at once with SQLITE_BUSY, and the store tries again after a short asynchronous pause.
 */
import Database from "better-sqlite3";
import { backoffPause, type BackoffSteps } from "../../../api/backoff.js";
import { StoreBusyError } from "../store-busy-error.js";

/**
 * 2 ms after the first failed attempt, doubling up to 50 ms: a released lock is noticed within
 * 50 ms.
 */
const LOCK_RETRY: BackoffSteps = { baseMs: 2, maxMs: 50 };

/** Whether `error` says another connection holds a lock SQLite needs (any SQLITE_BUSY_*). */
export function isBusy(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError &&
    (error.code === "SQLITE_BUSY" || error.code.startsWith("SQLITE_BUSY_"))
  );
}

/** The pause before retry number `retry` (0-based), jittered so two servers do not try in lockstep. */
export function retryPause(retry: number): number {
  return backoffPause(LOCK_RETRY, retry + 1, Math.random);
}

/** Resolves after `ms` milliseconds. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The error of an operation that waited `waited` ms for another process's lock, in vain. */
export function lockedFor(waited: number): StoreBusyError {
  return new StoreBusyError(
    `the database is locked by another process (waited ${Math.round(waited)} ms)`,
    waited,
  );
}

/**
 * Runs `operation`, trying again after short asynchronous pauses while another process's lock
 * is in the way; rejects with StoreBusyError once `timeoutMs` (by `now`) has passed.
 */
export async function whenUnlocked<T>(
  operation: () => T,
  timeoutMs: number,
  now: () => number,
): Promise<T> {
  const started = now();
  for (let retry = 0; ; retry++) {
    try {
      return operation();
    } catch (error) {
      if (!isBusy(error)) throw error;
    }
    const waited = now() - started;
    if (waited >= timeoutMs) throw lockedFor(waited);
    await pause(Math.min(retryPause(retry), timeoutMs - waited));
  }
}
