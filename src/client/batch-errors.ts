/**
 * What a batch request's failures say beyond their status: a rejected atomic batch carries
 * every change's result, and a server without the batch route is not a failed request but an
 * older (or spec-only) server, which a caller may fall back from.
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

  constructor(error: ApiError, results: BatchChangeResult[]) {
    super({
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
    });
    this.results = results;
  }
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
 * True when the server refused a batch for its count changes as a server without them does
 * (400 `invalid_body` naming `count` or `asOf` as no field of a change): nothing was applied.
 */
export function isCountsRefusal(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    error.operation === "applyInventoryBatch" &&
    error.status === 400 &&
    /\.(count|asOf) is not a field of a change/.test(error.message)
  );
}
