/**
 * Example bodies of `POST /inventory/batch` in the OpenAPI document, as the server answers
 * them: a request example and the answer to it share a name (`daySales`), so a reader sees
 * both. One story on the pets of openapi-examples.ts (1, 2 and 42; 77 is no pet).
 */
import { ERROR_CODES } from "./error-codes.js";
import { MAX_BATCH_CHANGES, MAX_QUANTITY } from "./limits.js";
import type { Example } from "./openapi-examples.js";
import type { ApiErrorBody, BatchOutcome, PetStatus } from "./types.js";

const error = (summary: string, body: ApiErrorBody): Example => ({ summary, value: body });

/** One result of a batch, as JSON. */
const result = (
  petId: number,
  outcome: BatchOutcome,
  previous: number | null,
  quantity: number | null,
  status: PetStatus | null,
) => ({ petId, outcome, previous, quantity, status });

/** A count's result: a result with what the count was reconciled with. */
const countResult = (
  base: ReturnType<typeof result>,
  count: { book: number | null; since: number | null; counted: number },
) => ({
  ...base,
  ...count,
  variance: count.book === null ? null : count.counted - count.book,
});

const daySales = {
  changes: [
    { petId: 42, delta: -1, ref: "R-2026-11-22-0042/1" },
    { petId: 1, delta: -2, ref: "R-2026-11-22-0042/2" },
    { petId: 42, delta: -1, ref: "R-2026-11-22-0051/1" },
  ],
};

const atomicRejected = {
  atomic: true,
  changes: [
    { petId: 1, quantity: 4, ifQuantity: 3 },
    { petId: 77, quantity: 2 },
  ],
};

export const batchRequestExamples = {
  nightlyReconcile: {
    summary: "A nightly reconcile: the counted quantities, each set only if unchanged since read",
    value: {
      changes: [
        { petId: 42, quantity: 8, ifQuantity: 6 },
        { petId: 1, quantity: 4, ifQuantity: 3 },
        { petId: 2, quantity: 3, ifQuantity: 1 },
      ],
    },
  },
  daySales: {
    summary: "A day's sales from the till: deltas, each with its receipt line as ref",
    value: daySales,
  },
  secondRun: {
    summary: "The same sales sent again (cron retried the job): every ref was applied before",
    value: daySales,
  },
  atomicRejected: {
    summary: "All or nothing: one change names a pet that does not exist",
    value: atomicRejected,
  },
  stocktake: {
    summary:
      "Two shelves counted at a read that said `Inventory-Seq: 1042`, posted later as counts as of it",
    value: {
      atomic: true,
      changes: [
        { petId: 42, count: 5, asOf: 1042, ref: "count:0193e0c4:42" },
        { petId: 1, count: 4, asOf: 1042, ref: "count:0193e0c4:1" },
      ],
    },
  },
  dryRun: {
    summary: "A dry run: what the batch would do, nothing written",
    value: {
      dryRun: true,
      changes: [
        { petId: 2, delta: -1, ref: "R-2026-11-23-0007/1" },
        { petId: 1, delta: 5, ref: "DN-5521/1" },
      ],
    },
  },
} satisfies Record<string, Example>;

export const batchResponseExamples = {
  nightlyReconcile: {
    summary:
      "Two counts set; pet 2 was sold since it was read (it holds 0, not 1), so its count is refused",
    value: {
      changed: 2,
      unchanged: 0,
      failed: 1,
      results: [
        result(42, "changed", 6, 8, "sold"),
        result(1, "changed", 3, 4, "available"),
        result(2, "conflict", 0, 0, "pending"),
      ],
    },
  },
  daySales: {
    summary: "Every sale applied in order: two on pet 42, both counted",
    value: {
      changed: 3,
      unchanged: 0,
      failed: 0,
      results: [
        result(42, "changed", 8, 7, "sold"),
        result(1, "changed", 4, 2, "available"),
        result(42, "changed", 7, 6, "sold"),
      ],
    },
  },
  stocktake: {
    summary:
      "Pet 42 was sold once after the count (since −1): 5 counted, so it holds 4. Pet 1 did not move: 4 counted, 2 more than the book",
    value: {
      changed: 2,
      unchanged: 0,
      failed: 0,
      results: [
        countResult(result(42, "changed", 5, 4, "sold"), { book: 6, since: -1, counted: 5 }),
        countResult(result(1, "changed", 2, 4, "available"), { book: 2, since: 0, counted: 4 }),
      ],
    },
  },
  secondRun: {
    summary: "The second run changes nothing: every change is a duplicate",
    value: {
      changed: 0,
      unchanged: 3,
      failed: 0,
      results: [
        result(42, "duplicate", 6, 6, "sold"),
        result(1, "duplicate", 2, 2, "available"),
        result(42, "duplicate", 6, 6, "sold"),
      ],
    },
  },
  dryRun: {
    summary: "Nothing written: the sale would go below zero, the delivery would apply",
    value: {
      changed: 1,
      unchanged: 0,
      failed: 1,
      results: [result(2, "below_zero", 0, 0, "pending"), result(1, "changed", 2, 7, "available")],
    },
  },
} satisfies Record<string, Example>;

export const batchRejectedExamples = {
  atomicRejected: {
    summary: "Pet 77 does not exist, so nothing was written: pet 1 was not set either",
    value: {
      code: ERROR_CODES.batchRejected,
      message: "1 of 2 changes failed (see results); the batch is atomic, so nothing was changed",
      status: 409,
      results: [result(1, "changed", 3, 4, "available"), result(77, "not_found", null, null, null)],
    },
  },
} satisfies Record<string, Example>;

export const invalidBatchExamples = {
  invalidChange: error("A change breaks a rule: the answer names it", {
    code: ERROR_CODES.invalidBody,
    message: `changes[3].delta must be a non-zero whole number from -${MAX_QUANTITY} to ${MAX_QUANTITY}; nothing was changed`,
    status: 400,
  }),
  unknownField: error("A change holds a field that is not one", {
    code: ERROR_CODES.invalidBody,
    message:
      "changes[0].qty is not a field of a change (petId, quantity, delta or count with asOf, ifQuantity, ref); nothing was changed",
    status: 400,
  }),
  countAfterLatest: error("A count as of a seq later than any change", {
    code: ERROR_CODES.invalidBody,
    message:
      "changes[0].asOf 1100 is after the latest change (seq 1042): a count is as of a seq a read of the inventory gave (Inventory-Seq); nothing was changed",
    status: 400,
  }),
  tooManyChanges: error(`More than ${MAX_BATCH_CHANGES} changes`, {
    code: ERROR_CODES.invalidBody,
    message: `changes must hold 1 to ${MAX_BATCH_CHANGES} changes, got 12000; nothing was changed`,
    status: 400,
  }),
  invalidJson: error("The body is not JSON", {
    code: ERROR_CODES.invalidJson,
    message: "the body is not valid JSON",
    status: 400,
  }),
} satisfies Record<string, Example>;

export const batchForbiddenExamples = {
  readOnlyKey: error("A read-only key (scope read)", {
    code: ERROR_CODES.forbidden,
    message:
      "the API key cron-report is read-only (scope read): it cannot POST; nothing was changed",
    status: 403,
  }),
} satisfies Record<string, Example>;

export const batchTooLargeExamples = {
  tooLarge: error("A body over 2 MiB", {
    code: ERROR_CODES.payloadTooLarge,
    message: "Request body is too large",
    status: 413,
  }),
} satisfies Record<string, Example>;

export const batchKeyReusedExamples = {
  reused: error("The Idempotency-Key was used before for another batch", {
    code: ERROR_CODES.idempotencyKeyReused,
    message:
      "this Idempotency-Key was already used for a different request (another batch); nothing was changed: use a new key for a new batch",
    status: 422,
  }),
} satisfies Record<string, Example>;
