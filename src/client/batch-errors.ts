/**
 * What a batch request's failures say beyond their status: a rejected atomic batch carries
 * every change's result; a server without the batch route is not a failed request but an
 * older (or spec-only) server, which a caller may fall back from; and a server without count
 * changes refuses a batch of counts as it refuses any unknown field, which a caller must tell
 * from a count it got wrong.
 */
import { ERROR_CODES } from "../api/error-codes.js";
import type { BatchChangeResult } from "../api/types.js";
import { ApiError } from "./errors.js";

/**
 * 409 `batch_rejected`: an atomic batch in which some change failed, so nothing was written.
 * `results` holds one result per change, in request order: the failed ones say why.
 */
export class BatchRejectedError extends ApiError {
  readonly results: BatchChangeResult[];
  /**
   * The latest seq the results reflect (`Inventory-Seq`; nothing was written); undefined from
   * a server that does not say, and on the replay of an answer kept by a server that kept none.
   */
  readonly seq: bigint | undefined;

  constructor(error: ApiError, results: BatchChangeResult[], seq?: bigint) {
    super(detailsOf(error));
    this.results = results;
    this.seq = seq;
  }
}

/**
 * 400 to a batch holding count changes, from a server that has none: it refused `count` (or
 * `asOf`) as no field of a change, as a server of an earlier version does. Nothing was applied;
 * the counts can go to a server that takes them. (A count this server takes but finds wrong,
 * an `asOf` after its latest seq say, is a plain ApiError 400.)
 */
export class CountChangesRefusedError extends ApiError {
  constructor(error: ApiError) {
    super(detailsOf(error));
  }
}

/** What an ApiError was made of, to make a more specific one of it. */
function detailsOf(error: ApiError): ConstructorParameters<typeof ApiError>[0] {
  return {
    status: error.status,
    code: error.code,
    message: error.message,
    operation: error.operation,
    method: error.method,
    url: error.url,
    attempts: error.attempts,
    location: error.location,
    etag: error.etag,
    target: error.target,
  };
}

/** True for the 409 of a rejected atomic batch. */
export function isBatchRejection(error: ApiError): boolean {
  return error.status === 409 && error.code === ERROR_CODES.batchRejected;
}

/**
 * True when the server has no `POST /inventory/batch` (404 or 405 to it: a server that
 * implements only the spec): nothing was applied, and the changes can go one by one.
 */
export function isMissingBatchRoute(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    error.operation === "applyInventoryBatch" &&
    (error.status === 404 || error.status === 405)
  );
}

/**
 * Whether a batch's 400 is a server without count changes refusing them (`invalid_body`
 * naming `count` or `asOf` as no field of a change, as every earlier petstore server words
 * it): what the client makes a CountChangesRefusedError of, for a batch that holds counts.
 */
export function refusesCountChanges(error: ApiError): boolean {
  return (
    error.operation === "applyInventoryBatch" &&
    error.status === 400 &&
    (error.code === undefined || error.code === ERROR_CODES.invalidBody) &&
    /\bchanges\[[0-9]+\]\.(count|asOf) is not a field of a change/.test(error.message)
  );
}

/**
 * True when the server refused a batch for its count changes as a server without them does
 * (CountChangesRefusedError): nothing was applied.
 */
export function isCountsRefusal(error: unknown): error is CountChangesRefusedError {
  return error instanceof CountChangesRefusedError;
}
