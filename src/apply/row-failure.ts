/** Why one row of an apply failed, in words for the report, and whether the server seems down. */
import { isPreconditionFailed, quantityOfETag } from "../client/etag.js";
import { CliError } from "../errors.js";
import { ApiError, MalformedResponseError, NetworkError } from "../client/errors.js";

/** A row's failure (or, for a row not attempted, why it was not sent) as the report shows it. */
export interface RowFailure {
  reason: string;
  /** The server's error code, when it sent one. */
  code?: string | undefined;
  /** The HTTP status of the final answer, when there was one. */
  status?: number | undefined;
  /**
   * Nothing was wrong with the row itself: it was in an atomic batch that was rejected because
   * other rows failed, so it was not applied.
   */
  batchRejected?: true | undefined;
  /**
   * The request may have reached the server, and no answer said what became of it (none in
   * time, a connection lost once sent, an answer that could not be read): the row may have
   * been applied. The report never counts such a row as not applied.
   */
  unanswered?: true | undefined;
}

/** Whether a request that failed may have reached the server, in any of its attempts. */
function mayHaveReached(error: NetworkError | ApiError): boolean {
  return (
    error.earlierAttemptMayHaveReached ||
    (error instanceof NetworkError && error.mayHaveReachedServer())
  );
}

const MAY_HAVE_BEEN_APPLIED = "it may have been applied";

function attemptsNote(attempts: number): string | undefined {
  return attempts > 1 ? `after ${attempts} attempts` : undefined;
}

function withNotes(message: string, notes: readonly (string | undefined)[]): string {
  const shown = notes.filter((note) => note !== undefined);
  return shown.length === 0 ? message : `${message} (${shown.join(", ")})`;
}

/**
 * Describes what a row's request threw; in a dry run (`dryRun`) nothing was applied, answered
 * or not.
 */
export function describeRowFailure(error: unknown, { dryRun = false } = {}): RowFailure {
  if (isPreconditionFailed(error)) {
    const current = quantityOfETag(error.etag);
    return {
      reason:
        current === undefined
          ? "changed since it was read; not overwritten"
          : `changed to ${current} since it was read; not overwritten`,
      code: error.code,
      status: error.status,
    };
  }
  if (error instanceof ApiError) {
    if (error.isNoSuchPet()) {
      return { reason: "no such pet", code: error.code, status: 404 };
    }
    const reason = withNotes(error.message, [
      error.code,
      `HTTP ${error.status}`,
      attemptsNote(error.attempts),
    ]);
    // A failing server's answer after an attempt that got none: that one may have applied it.
    const unknown =
      !dryRun && (error.status >= 500 || error.status === 429) && mayHaveReached(error);
    return unknown
      ? {
          reason: `${reason}; ${MAY_HAVE_BEEN_APPLIED}`,
          code: error.code,
          status: error.status,
          unanswered: true,
        }
      : { reason, code: error.code, status: error.status };
  }
  if (error instanceof NetworkError) {
    const reason = withNotes(error.message, [attemptsNote(error.attempts)]);
    return !dryRun && mayHaveReached(error)
      ? { reason: `${reason}; ${MAY_HAVE_BEEN_APPLIED}`, unanswered: true }
      : { reason };
  }
  if (error instanceof MalformedResponseError) {
    return dryRun
      ? { reason: error.message }
      : { reason: `${error.message}; ${MAY_HAVE_BEEN_APPLIED}`, unanswered: true };
  }
  if (error instanceof CliError) {
    return { reason: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { reason: `unexpected failure: ${message} (a bug in petstore, please report it)` };
}

/**
 * True when the failure says more about the server or the connection than about the row
 * (unreachable, 5xx or 429 after retries, a rejected key, a non-petstore answer): enough of
 * these in a row and the rest of the run is not worth attempting.
 */
export function isServerWideFailure(error: unknown): boolean {
  if (error instanceof NetworkError || error instanceof MalformedResponseError) return true;
  if (error instanceof ApiError) {
    return (
      error.status >= 500 || error.status === 429 || error.status === 401 || error.status === 403
    );
  }
  return false;
}
