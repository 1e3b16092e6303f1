/**
 * The entity tag of an inventory entry: its quantity as a quoted decimal (`"7"`), as the
 * service decides, so a listed quantity is already a precondition for a conditional write.
 */
import { ERROR_CODES } from "../api/error-codes.js";
import { entityTagOf } from "../api/etag.js";
import { isValidQuantity } from "../api/limits.js";
import { ApiError } from "./errors.js";

/** The `If-Match` value that holds only while the entry's quantity is `quantity`. */
export function quantityETag(quantity: number): string {
  return entityTagOf(quantity);
}

/**
 * The quantity an entity tag names, or undefined when it is absent or not a quoted quantity
 * (a server is free to send other tags; then the quantity is not known from the tag alone).
 */
export function quantityOfETag(etag: string | undefined): number | undefined {
  const digits = /^"(0|[1-9][0-9]{0,9})"$/.exec(etag?.trim() ?? "")?.[1];
  if (digits === undefined) return undefined;
  const quantity = Number(digits);
  return isValidQuantity(quantity) ? quantity : undefined;
}

/** True for the 412 `precondition_failed` of a PATCH whose If-Match no longer held. */
export function isPreconditionFailed(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    error.status === 412 &&
    (error.code === undefined || error.code === ERROR_CODES.preconditionFailed)
  );
}
