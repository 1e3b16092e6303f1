/** Machine-readable `code` values of the Error body. */
export const ERROR_CODES = {
  invalidPetId: "invalid_pet_id",
  invalidBody: "invalid_body",
  invalidJson: "invalid_json",
  badRequest: "bad_request",
  unsupportedMediaType: "unsupported_media_type",
  payloadTooLarge: "payload_too_large",
  unauthorized: "unauthorized",
  petNotFound: "pet_not_found",
  notFound: "not_found",
  methodNotAllowed: "method_not_allowed",
  tooManyRequests: "too_many_requests",
  internalError: "internal_error",
  /** 503: the server cannot serve the request now (its database is locked); retry later. */
  unavailable: "unavailable",
} as const;
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];
