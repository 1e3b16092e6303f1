/**
 * The 503s for a request the server cannot serve right now (a database lock, shutting down,
 * a full disk), each with `Retry-After`.
 */
import { ERROR_CODES } from "../api/error-codes.js";
import { HttpError } from "./http-error.js";

/**
 * What `Retry-After` asks of a client. The store has already waited its lock time-out
 * (5 s by default) before a 503, so a lock that outlasted it is a long one (a backup):
 * retrying after a second, with the CLI's own backoff on top, is soon enough. A refused
 * write costs the server next to nothing, so a full disk asks the same: the write goes
 * through as soon as space is freed, and the CLI gives up within seconds with its hint.
 */
export const RETRY_AFTER_SECONDS = 1;

/** A 503 `unavailable` with `Retry-After`; `message` says what happened and that nothing changed. */
export function serviceUnavailable(
  message: string,
  headers: Readonly<Record<string, string>> = {},
): HttpError {
  return new HttpError(503, ERROR_CODES.unavailable, message, {
    "retry-after": String(RETRY_AFTER_SECONDS),
    ...headers,
  });
}

/** The 503 of a write another process's lock on the database kept out past the time-out. */
export class LockedOutError extends HttpError {}

/** A write kept out by a lock held elsewhere: 503 `unavailable`; nothing was changed. */
export function lockedOut(): LockedOutError {
  return new LockedOutError(
    503,
    ERROR_CODES.unavailable,
    "the database is locked by another process; nothing was changed, retry later",
    { "retry-after": String(RETRY_AFTER_SECONDS) },
  );
}

/** The 503 `storage_full` of a write refused for lack of space: nothing was changed. */
export function storageFull(): HttpError {
  return new HttpError(
    503,
    ERROR_CODES.storageFull,
    "the server's storage is full, so nothing was changed; retry once space is freed on the server",
    { "retry-after": String(RETRY_AFTER_SECONDS) },
  );
}
