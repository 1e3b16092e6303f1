/** The `Idempotency-Key` request header and the fingerprint of the request it is bound to. */
import { createHash } from "node:crypto";
import { serializeBatchRequest } from "../api/batch.js";
import { ERROR_CODES } from "../api/error-codes.js";
import type { BatchRequest } from "../api/types.js";
import { HttpError } from "./http-error.js";
import type { IfMatch } from "./if-match.js";

/** 1–255 visible ASCII characters (%x21-7E): no spaces, no control or non-ASCII bytes. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Returns the `Idempotency-Key` header, undefined when absent, or throws 400 `invalid_header`. */
export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(header)) {
    throw new HttpError(
      400,
      ERROR_CODES.invalidHeader,
      `Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces), got ${header.length} characters`,
    );
  }
  return header;
}

/** What a PATCH asks for, as far as its idempotency key is concerned. */
export interface PatchRequest {
  petId: bigint;
  quantity: number;
  ifMatch: IfMatch | undefined;
}

/**
 * The request's fingerprint: SHA-256 (hex) of a canonical JSON text of what the request
 * means, not how it was written: the operation, `petId` as a decimal string, the parsed body
 * and the `If-Match` tags sorted without duplicates (or `*`, or null when absent). So `{
 * "quantity" : 5 }` and `{"quantity":5}` are the same request, and `"3", "7"` the same as
 * `"7","3"`; a different petId, quantity or precondition is a different one.
 */
export function fingerprintOf(request: PatchRequest): string {
  const ifMatch =
    request.ifMatch === undefined
      ? null
      : request.ifMatch.kind === "any"
        ? "*"
        : [...new Set(request.ifMatch.tags)].sort();
  const canonical = JSON.stringify({
    operation: "updateInventory",
    petId: request.petId.toString(),
    body: { quantity: request.quantity },
    ifMatch,
  });
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * A batch's fingerprint, by the same rule: the operation and the batch as read (api/batch.ts
 * writes it out in one canonical form: fields in one order, defaults filled in), so spacing,
 * field order and `"atomic": false` written or left out do not make another request.
 */
export function batchFingerprintOf(request: BatchRequest): string {
  const canonical = `{"operation":"applyInventoryBatch","body":${serializeBatchRequest(request)}}`;
  return createHash("sha256").update(canonical).digest("hex");
}
