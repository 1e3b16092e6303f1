/**
 * Example bodies of the OpenAPI document: what the server really answers. Readers see them,
 * `redocly lint` checks them against the schemas, and a mock server (`prism mock`) answers
 * with them, so a client tried against the mock sees realistic data and error bodies.
 */
import { ERROR_CODES } from "./error-codes.js";
import { MAX_QUANTITY, MIN_QUANTITY } from "./limits.js";
import type { ApiErrorBody } from "./types.js";

/** A named example of an OpenAPI media type. */
export interface Example {
  summary: string;
  value: unknown;
}

const error = (summary: string, body: ApiErrorBody): Example => ({ summary, value: body });

export const inventoryListExamples = {
  inventory: {
    summary: "Three stock entries",
    value: [
      { petId: 1, quantity: 3, status: "available" },
      { petId: 2, quantity: 0, status: "pending" },
      { petId: 42, quantity: 7, status: "sold" },
    ],
  },
} satisfies Record<string, Example>;

export const inventoryUpdateExamples = {
  counted: { summary: "Seven counted on the shelf", value: { quantity: 7 } },
} satisfies Record<string, Example>;

export const inventoryItemExamples = {
  updated: {
    summary: "The entry after setting its quantity to 7",
    value: { petId: 42, quantity: 7, status: "sold" },
  },
} satisfies Record<string, Example>;

export const inventoryEntryExamples = {
  entry: {
    summary: 'One stock entry (its ETag is "7")',
    value: { petId: 42, quantity: 7, status: "sold" },
  },
} satisfies Record<string, Example>;

export const petExamples = {
  rex: {
    summary: "A pet with a category and a tag",
    value: {
      id: 1,
      name: "Rex",
      status: "available",
      category: { id: 1, name: "Dogs" },
      photoUrls: ["https://example.com/rex.jpg"],
      tags: [{ id: 1, name: "puppy" }],
    },
  },
} satisfies Record<string, Example>;

export const orderListExamples = {
  orders: {
    summary: "One approved order",
    value: [
      {
        id: 1,
        petId: 3,
        quantity: 1,
        shipDate: "2026-11-20T10:00:00.000Z",
        status: "approved",
        complete: false,
      },
    ],
  },
} satisfies Record<string, Example>;

export const invalidBodyExamples = {
  invalidBody: error(`quantity is not an integer from ${MIN_QUANTITY} to ${MAX_QUANTITY}`, {
    code: ERROR_CODES.invalidBody,
    message: "body/quantity must be >= 0",
    status: 400,
  }),
  invalidPetId: error("petId is not a positive int64", {
    code: ERROR_CODES.invalidPetId,
    message: 'petId must be a positive 64-bit integer, got "abc"',
    status: 400,
  }),
  invalidJson: error("The body is not JSON", {
    code: ERROR_CODES.invalidJson,
    message: "Body is not valid JSON but content-type is set to 'application/json'",
    status: 400,
  }),
} satisfies Record<string, Example>;

export const invalidHeaderExamples = {
  invalidIfMatch: error("If-Match is not * or a list of quoted entity tags", {
    code: ERROR_CODES.invalidHeader,
    message: 'If-Match must be * or a list of quoted entity tags such as "7", got "7"',
    status: 400,
  }),
  invalidIdempotencyKey: error("Idempotency-Key is not 1 to 255 visible ASCII characters", {
    code: ERROR_CODES.invalidHeader,
    message:
      "Idempotency-Key must be 1 to 255 visible ASCII characters (no spaces), got 256 characters",
    status: 400,
  }),
} satisfies Record<string, Example>;

export const invalidReasonExamples = {
  invalidChangeReason: error("X-Change-Reason is longer than 200 characters or not printable", {
    code: ERROR_CODES.invalidHeader,
    message: "X-Change-Reason is refused: it is 230 characters long; at most 200 are allowed",
    status: 400,
  }),
} satisfies Record<string, Example>;

export const invalidLimitExamples = {
  invalidLimit: error("limit is not a whole number from 1 to 1000", {
    code: ERROR_CODES.invalidLimit,
    message: 'limit must be a whole number from 1 to 1000, got "5000"',
    status: 400,
  }),
} satisfies Record<string, Example>;

export const inventoryChangesExamples = {
  changes: {
    summary:
      "A sale at a till (a batch change with its ref) after the nightly recount, newest first",
    value: [
      {
        seq: 1187,
        at: "2026-11-22T14:03:12.481Z",
        petId: 42,
        previous: 8,
        quantity: 7,
        keyName: "till-1",
        requestId: "0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b",
        reason: "sale",
        ref: "R-2026-11-22-0042/1",
      },
      {
        seq: 1041,
        at: "2026-11-22T02:00:04.017Z",
        petId: 42,
        previous: 6,
        quantity: 8,
        keyName: "cron",
        requestId: "5d1e7a90-3c2b-4f8e-b1a6-9e0d4c7f2a13",
        reason: "apply counts.csv",
        ref: null,
      },
      {
        seq: 3,
        at: "2026-11-01T09:00:00.000Z",
        petId: 42,
        previous: null,
        quantity: 6,
        keyName: null,
        requestId: null,
        reason: "seed pets.json",
        ref: null,
      },
    ],
  },
} satisfies Record<string, Example>;

export const preconditionFailedExamples = {
  changed: error("The entry no longer holds the quantity If-Match named", {
    code: ERROR_CODES.preconditionFailed,
    message: 'If-Match does not match: pet 42 holds quantity 6 (ETag "6"); nothing was changed',
    status: 412,
  }),
} satisfies Record<string, Example>;

export const idempotencyKeyReusedExamples = {
  reused: error("The Idempotency-Key was used before for another request", {
    code: ERROR_CODES.idempotencyKeyReused,
    message:
      "this Idempotency-Key was already used for a different request (another petId, body or If-Match); nothing was changed: use a new key for a new change",
    status: 422,
  }),
} satisfies Record<string, Example>;

export const invalidPetIdExamples = {
  invalidPetId: invalidBodyExamples.invalidPetId,
} satisfies Record<string, Example>;

export const unauthorizedExamples = {
  missingKey: error("No Authorization header", {
    code: ERROR_CODES.unauthorized,
    message: "missing API key: send Authorization: Bearer <API_KEY>",
    status: 401,
  }),
  invalidKey: error("A key that is not accepted", {
    code: ERROR_CODES.unauthorized,
    message: "invalid API key",
    status: 401,
  }),
} satisfies Record<string, Example>;

export const forbiddenExamples = {
  readOnlyKey: error("A read-only key (scope read) on a write", {
    code: ERROR_CODES.forbidden,
    message:
      "the API key cron-report is read-only (scope read): it cannot PATCH; nothing was changed",
    status: 403,
  }),
} satisfies Record<string, Example>;

export const petNotFoundExamples = {
  petNotFound: error("No pet with this petId", {
    code: ERROR_CODES.petNotFound,
    message: "no pet with petId 42",
    status: 404,
  }),
} satisfies Record<string, Example>;

export const unavailableExamples = {
  locked: error("Another process held the database's lock for the whole wait", {
    code: ERROR_CODES.unavailable,
    message: "the database is locked by another process; nothing was changed, retry later",
    status: 503,
  }),
  storageFull: error("The server's storage is full: the write was refused", {
    code: ERROR_CODES.storageFull,
    message:
      "the server's storage is full, so nothing was changed; retry once space is freed on the server",
    status: 503,
  }),
} satisfies Record<string, Example>;

export const otherErrorExamples = {
  unsupportedMediaType: error("The body is not application/json", {
    code: ERROR_CODES.unsupportedMediaType,
    message: "Unsupported Media Type",
    status: 415,
  }),
  internalError: error("A fault in the server; details are only logged", {
    code: ERROR_CODES.internalError,
    message: "internal server error",
    status: 500,
  }),
} satisfies Record<string, Example>;
