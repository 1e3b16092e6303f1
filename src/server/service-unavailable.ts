/** The 503 for a request the server cannot serve right now (a database lock, shutting down). */
import { ERROR_CODES } from "../api/error-codes.js";
import { HttpError } from "./http-error.js";

/**
 * What `Retry-After` asks of a client. The store has already waited its lock time-out
 * (5 s by default) before a 503, so a lock that outlasted it is a long one (a backup):
 * retrying after a second, with the CLI's own backoff on top, is soon enough.
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
