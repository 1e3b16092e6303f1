/** Machine-readable `code` values of the Error body. */
export const ERROR_CODES = {
  invalidPetId: "invalid_pet_id",
  invalidBody: "invalid_body",
  invalidJson: "invalid_json",
  badRequest: "bad_request",
  /** 400: a malformed `If-Match` or `Idempotency-Key` header. */
  invalidHeader: "invalid_header",
  /** 412: `If-Match` named another quantity than the entry holds; nothing changed. */
  preconditionFailed: "precondition_failed",
  /** 422: an `Idempotency-Key` already used for a different request. */
  idempotencyKeyReused: "idempotency_key_reused",
  /** 409: an atomic batch in which a change failed; nothing was written. */
  batchRejected: "batch_rejected",
  /** 400: a query parameter that is not what the route takes (the feed's `after` or `wait`). */
  invalidParameter: "invalid_parameter",
  /** 400: a history request's `limit` is not a whole number from 1 to 1000. */
  invalidLimit: "invalid_limit",
  malformedRequest: "malformed_request",
  requestTimeout: "request_timeout",
  headersTooLarge: "headers_too_large",
  expectationFailed: "expectation_failed",
  /** 503: the server cannot serve the request now (a database lock, shutting down); retry. */
  unavailable: "unavailable",
  /**
   * 503: the server's storage is full, so a write was refused and nothing was changed; retry
   * once space is freed.
   */
  storageFull: "storage_full",
  unsupportedMediaType: "unsupported_media_type",
  payloadTooLarge: "payload_too_large",
  unauthorized: "unauthorized",
  /** 403: the key is accepted but its scope does not allow this (a read key on a write). */
  forbidden: "forbidden",
  petNotFound: "pet_not_found",
  notFound: "not_found",
  methodNotAllowed: "method_not_allowed",
  tooManyRequests: "too_many_requests",
  internalError: "internal_error",
} as const;
