/**
 * Example answers of `GET /inventory/changes` (the change feed) in the OpenAPI document, as the
 * server sends them. One story with the history example of openapi-examples.ts: pet 42's sale
 * is seq 1187 in both.
 */
import { ERROR_CODES } from "./error-codes.js";
import { MAX_FEED_LIMIT, MAX_FEED_WAIT_SECONDS, MAX_PET_ID } from "./limits.js";
import type { Example } from "./openapi-examples.js";
import type { ApiErrorBody } from "./types.js";

const error = (summary: string, body: ApiErrorBody): Example => ({ summary, value: body });

/** The till's request that sold pet 42 and two of pet 1 in one batch. */
const sale = {
  at: "2026-11-22T14:03:12.481Z",
  keyName: "till-1",
  requestId: "0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b",
  reason: "sale",
};

export const changeFeedExamples = {
  page: {
    summary:
      "?after=1185&limit=3: a full page (more may follow), a delivery counted by PATCH and two sales of one batch; next is 1188",
    value: {
      changes: [
        {
          seq: 1186,
          at: "2026-11-22T13:58:40.112Z",
          petId: 2,
          previous: 0,
          quantity: 5,
          keyName: "frontdesk",
          requestId: "9c4b2e71-6d3a-4f05-8e19-7a2c5b0d3f84",
          reason: "delivery from supplier",
          ref: null,
        },
        { seq: 1187, ...sale, petId: 42, previous: 8, quantity: 7, ref: "R-2026-11-22-0042/1" },
        { seq: 1188, ...sale, petId: 1, previous: 4, quantity: 2, ref: "R-2026-11-22-0042/2" },
      ],
      next: 1188,
    },
  },
  woken: {
    summary:
      "?after=1188&wait=30: the long poll waited until the next change committed, and answers it",
    value: {
      changes: [
        {
          seq: 1189,
          at: "2026-11-22T14:07:55.903Z",
          petId: 42,
          previous: 7,
          quantity: 6,
          keyName: "till-1",
          requestId: "3e8a1f62-0c7d-4b94-a5e3-61f0d2b8c47a",
          reason: "sale",
          ref: "R-2026-11-22-0051/1",
        },
      ],
      next: 1189,
    },
  },
  caughtUp: {
    summary:
      "?after=1189&wait=30: no change came during the 30 s, so the page is empty and next is still 1189",
    value: { changes: [], next: 1189 },
  },
} satisfies Record<string, Example>;

export const invalidFeedParameterExamples = {
  invalidAfter: error("after is not a whole number from 0 to the largest int64", {
    code: ERROR_CODES.invalidParameter,
    message: `after must be a whole number from 0 to ${MAX_PET_ID}, got "-1"`,
    status: 400,
  }),
  invalidFeedLimit: error(`limit is not a whole number from 1 to ${MAX_FEED_LIMIT}`, {
    code: ERROR_CODES.invalidLimit,
    message: `limit must be a whole number from 1 to ${MAX_FEED_LIMIT}, got "5000"`,
    status: 400,
  }),
  invalidWait: error(`wait is not a whole number of seconds from 0 to ${MAX_FEED_WAIT_SECONDS}`, {
    code: ERROR_CODES.invalidParameter,
    message: `wait must be a whole number from 0 to ${MAX_FEED_WAIT_SECONDS}, got "120"`,
    status: 400,
  }),
} satisfies Record<string, Example>;

export const feedUnavailableExamples = {
  unreachable: error("The database (PostgreSQL) cannot be reached", {
    code: ERROR_CODES.unavailable,
    message: "the database is unreachable; nothing was changed, retry later",
    status: 503,
  }),
} satisfies Record<string, Example>;
