/**
 * JSON Schemas of the spec's shapes. The server validates and serializes with
 * them and the OpenAPI document is built from them, so the two cannot drift.
 */
import { MAX_CHANGE_REASON_LENGTH } from "./change-reason.js";
import { ERROR_CODES } from "./error-codes.js";
import {
  MAX_BATCH_CHANGES,
  MAX_FEED_LIMIT,
  MAX_QUANTITY,
  MAX_REF_LENGTH,
  MIN_QUANTITY,
} from "./limits.js";
import { BATCH_OUTCOMES, ORDER_STATUSES, PET_STATUSES } from "./types.js";

export const petStatusSchema = {
  type: "string",
  enum: [...PET_STATUSES],
  description: "Status of the pet",
} as const;

const petIdSchema = {
  type: "integer",
  format: "int64",
  minimum: 1,
  description: "Identifier of the pet (int64)",
} as const;

const quantitySchema = {
  type: "integer",
  minimum: MIN_QUANTITY,
  maximum: MAX_QUANTITY,
} as const;

export const inventoryItemSchema = {
  type: "object",
  required: ["petId", "quantity", "status"],
  additionalProperties: false,
  properties: {
    petId: petIdSchema,
    quantity: { ...quantitySchema, description: "Current stock count" },
    status: petStatusSchema,
  },
} as const;

export const inventoryListSchema = {
  type: "array",
  description: "An array of inventory entries",
  items: inventoryItemSchema,
} as const;

/**
 * One record of the history: `GET /inventory/{petId}/history` answers an array of them, and
 * the change feed (`GET /inventory/changes`) pages through all of them in `seq` order.
 */
export const inventoryChangeSchema = {
  type: "object",
  required: ["seq", "at", "petId", "previous", "quantity", "keyName", "requestId", "reason", "ref"],
  additionalProperties: false,
  properties: {
    seq: {
      type: "integer",
      format: "int64",
      minimum: 1,
      description:
        "The record's place in commit order (int64): unique in the store, increasing in the order the changes committed. The change feed's cursor",
    },
    at: { type: "string", format: "date-time", description: "When, in RFC 3339 UTC" },
    petId: petIdSchema,
    previous: {
      type: ["integer", "null"],
      minimum: MIN_QUANTITY,
      maximum: MAX_QUANTITY,
      description: "The quantity before; null when the change created the entry (a seed)",
    },
    quantity: { ...quantitySchema, description: "The quantity set" },
    keyName: {
      type: ["string", "null"],
      description: "The name of the API key that made the change; null for a seed",
    },
    requestId: {
      type: ["string", "null"],
      description: "The id of the request, as the server logged it; null for a seed",
    },
    reason: {
      type: ["string", "null"],
      maxLength: MAX_CHANGE_REASON_LENGTH,
      description: "The `X-Change-Reason` sent with the change, or how a seed was loaded",
    },
    ref: {
      type: ["string", "null"],
      maxLength: MAX_REF_LENGTH,
      description:
        "The business reference (`ref`) of the batch change that made it; null for any other change",
    },
  },
} as const;

/** The 200 answer of `GET /inventory/changes`: a page of the change feed and the next cursor. */
export const changeFeedPageSchema = {
  type: "object",
  required: ["changes", "next"],
  additionalProperties: false,
  properties: {
    changes: {
      type: "array",
      maxItems: MAX_FEED_LIMIT,
      description:
        "The history records with a `seq` above `after`, in `seq` order, at most `limit`; empty when none is (after the wait, if one was asked for)",
      items: inventoryChangeSchema,
    },
    next: {
      type: "integer",
      format: "int64",
      minimum: 0,
      description:
        "The `after` of the next request: the last `seq` listed, or `after` itself when none is. A change never commits behind a `next` already handed out, so a reader that follows `next` sees every change exactly once",
    },
  },
} as const;

export const inventoryUpdateSchema = {
  type: "object",
  required: ["quantity"],
  additionalProperties: false,
  properties: {
    quantity: { ...quantitySchema, description: "The new stock count" },
  },
} as const;

/** A batch change's business reference: 1 to 128 visible ASCII characters (%x21-7E). */
const refSchema = {
  type: "string",
  minLength: 1,
  maxLength: MAX_REF_LENGTH,
  pattern: "^[!-~]+$",
  description:
    "The change's business reference (a sale line, a row of a file): 1 to 128 visible ASCII characters. Kept with the history for good: a change whose `ref` was already applied to this pet, at any time before, is not applied again (`duplicate`)",
} as const;

const ifQuantitySchema = {
  ...quantitySchema,
  description:
    "Apply the change only if the entry holds this quantity now (as `If-Match` on a PATCH); otherwise its outcome is `conflict`",
} as const;

/** A change of a batch that sets the quantity. */
export const batchSetSchema = {
  title: "Set",
  type: "object",
  required: ["petId", "quantity"],
  additionalProperties: false,
  properties: {
    petId: petIdSchema,
    quantity: { ...quantitySchema, description: "The new stock count" },
    ifQuantity: ifQuantitySchema,
    ref: refSchema,
  },
} as const;

/** A change of a batch relative to the quantity the entry holds when it applies. */
export const batchDeltaSchema = {
  title: "Delta",
  type: "object",
  required: ["petId", "delta"],
  additionalProperties: false,
  properties: {
    petId: petIdSchema,
    delta: {
      type: "integer",
      minimum: -MAX_QUANTITY,
      maximum: MAX_QUANTITY,
      not: { const: 0 },
      description:
        "How much to add (a delivery) or, negative, take away (a sale): a non-zero whole number",
    },
    ifQuantity: ifQuantitySchema,
    ref: refSchema,
  },
} as const;

/**
 * A change of a batch that is a count of the pet's shelf, true as of a feed seq: the quantity
 * becomes the count plus the net of the pet's changes committed after that seq.
 */
export const batchCountChangeSchema = {
  title: "Count",
  type: "object",
  required: ["petId", "count", "asOf"],
  additionalProperties: false,
  properties: {
    petId: petIdSchema,
    count: {
      ...quantitySchema,
      description:
        "How many were on the shelf when it was counted. The pet's quantity becomes this plus the net of its changes committed after `asOf` (sales and deliveries since the count are kept)",
    },
    asOf: {
      type: "integer",
      format: "int64",
      minimum: 0,
      description:
        "The feed seq the count is true as of: the `Inventory-Seq` of the read made when the shelf was counted. Later than the store's latest change: 400 `invalid_body`, naming the latest seq, nothing changed",
    },
    ref: refSchema,
  },
} as const;

/**
 * Body of `POST /inventory/batch`, for the OpenAPI document. The server checks bodies with
 * readBatchRequest() (api/batch.ts), which keeps int64 petIds exact; a test checks that the
 * two agree.
 */
export const batchRequestSchema = {
  type: "object",
  required: ["changes"],
  additionalProperties: false,
  properties: {
    atomic: {
      type: "boolean",
      default: false,
      description:
        "All changes are applied or none is: when any change fails, nothing is written and the answer is 409 `batch_rejected`",
    },
    dryRun: {
      type: "boolean",
      default: false,
      description:
        "Evaluate the batch exactly as it would be applied and write nothing (no history, no idempotency record)",
    },
    changes: {
      type: "array",
      minItems: 1,
      maxItems: MAX_BATCH_CHANGES,
      description: "The changes, applied in this order, each seeing the ones before it",
      items: { oneOf: [batchSetSchema, batchDeltaSchema, batchCountChangeSchema] },
    },
  },
} as const;

const nullableQuantitySchema = {
  type: ["integer", "null"],
  minimum: MIN_QUANTITY,
  maximum: MAX_QUANTITY,
} as const;

/** A signed quantity: a difference of two quantities. */
const quantityDifferenceSchema = {
  type: ["integer", "null"],
  minimum: -MAX_QUANTITY,
  maximum: MAX_QUANTITY,
} as const;

/** What became of one change of a batch, in request order. */
export const batchChangeResultSchema = {
  type: "object",
  required: ["petId", "outcome", "previous", "quantity", "status"],
  // A count's result carries all four of its fields (each requires the other three); any
  // other result, and a count's that is a `duplicate`, none of them.
  dependentRequired: {
    book: ["since", "counted", "variance"],
    since: ["book", "counted", "variance"],
    counted: ["book", "since", "variance"],
    variance: ["book", "since", "counted"],
  },
  additionalProperties: false,
  properties: {
    petId: petIdSchema,
    outcome: {
      type: "string",
      enum: [...BATCH_OUTCOMES],
      description:
        "`changed`; `unchanged` (a set to the quantity the entry holds, or a count equal to the book with nothing moved since `asOf`: no history record); `duplicate` (a change with this `ref` was applied to this pet before); the failures `conflict` (`ifQuantity` did not match), `not_found`, `below_zero` (a delta, or a count plus what moved since, would go below 0), `too_large` (above 2147483647)",
    },
    previous: {
      ...nullableQuantitySchema,
      description: "The entry's quantity before the change; null for `not_found`",
    },
    quantity: {
      ...nullableQuantitySchema,
      description:
        "The entry's quantity after the change, or its quantity now when the change was not applied; null for `not_found`",
    },
    status: {
      type: ["string", "null"],
      enum: [...PET_STATUSES, null],
      description: "The pet's status; null for `not_found`",
    },
    book: {
      ...nullableQuantitySchema,
      description:
        "A count's (absent from other results, and from a count's `duplicate`): the quantity the pet held as of `asOf`, its quantity now less `since`; null for `not_found`",
    },
    since: {
      ...quantityDifferenceSchema,
      description:
        "A count's: the net of the pet's changes committed after `asOf` (sales negative, deliveries positive), kept on top of the count; null for `not_found`",
    },
    counted: {
      ...quantitySchema,
      description: "A count's: the `count` sent",
    },
    variance: {
      ...quantityDifferenceSchema,
      description:
        "A count's: `counted` − `book`, what the shelf held beyond (or, negative, short of) the book; null for `not_found`",
    },
  },
} as const;

const batchResultsSchema = {
  type: "array",
  minItems: 1,
  maxItems: MAX_BATCH_CHANGES,
  description: "One result per change, in request order",
  items: batchChangeResultSchema,
} as const;

const batchCountSchema = (description: string) =>
  ({ type: "integer", minimum: 0, maximum: MAX_BATCH_CHANGES, description }) as const;

/** The 200 answer of `POST /inventory/batch`. */
export const batchResponseSchema = {
  type: "object",
  required: ["changed", "unchanged", "failed", "results"],
  additionalProperties: false,
  properties: {
    changed: batchCountSchema(
      "How many changes were applied (in a dry run: would be); each is on disk when the answer is sent",
    ),
    unchanged: batchCountSchema("How many changes were `unchanged` or `duplicate`"),
    failed: batchCountSchema(
      "How many changes failed (`conflict`, `not_found`, `below_zero`, `too_large`)",
    ),
    results: batchResultsSchema,
  },
} as const;

export const errorSchema = {
  type: "object",
  required: ["code", "message", "status"],
  additionalProperties: false,
  properties: {
    code: { type: "string", description: "Machine-readable error code" },
    message: { type: "string", description: "Human-readable description" },
    status: { type: "integer", minimum: 400, maximum: 599, description: "The HTTP status code" },
  },
} as const;

/** The 409 answer of an atomic batch in which a change failed: the Error body and the results. */
export const batchRejectionSchema = {
  type: "object",
  required: ["code", "message", "status", "results"],
  additionalProperties: false,
  properties: {
    ...errorSchema.properties,
    code: {
      type: "string",
      const: ERROR_CODES.batchRejected,
      description: "Machine-readable error code",
    },
    status: { type: "integer", const: 409, description: "The HTTP status code" },
    results: {
      ...batchResultsSchema,
      description:
        "One result per change, in request order, as the batch was evaluated: the failed ones say why. Nothing was written, so a `changed` result is one that would have been applied",
    },
  },
} as const;

const namedRefSchema = {
  type: "object",
  required: ["id", "name"],
  additionalProperties: false,
  properties: {
    id: { type: "integer", format: "int64" },
    name: { type: "string" },
  },
} as const;

export const petSchema = {
  type: "object",
  required: ["id", "name", "status", "photoUrls", "tags"],
  additionalProperties: false,
  properties: {
    id: petIdSchema,
    name: { type: "string" },
    status: petStatusSchema,
    category: namedRefSchema,
    photoUrls: { type: "array", items: { type: "string" } },
    tags: { type: "array", items: namedRefSchema },
  },
} as const;

export const orderSchema = {
  type: "object",
  required: ["id", "petId", "quantity", "shipDate", "status", "complete"],
  additionalProperties: false,
  properties: {
    id: { type: "integer", format: "int64", minimum: 1 },
    petId: petIdSchema,
    quantity: { type: "integer", minimum: 1, maximum: MAX_QUANTITY },
    shipDate: { type: "string", format: "date-time" },
    status: { type: "string", enum: [...ORDER_STATUSES] },
    complete: { type: "boolean" },
  },
} as const;

export const orderListSchema = { type: "array", items: orderSchema } as const;

export const healthSchema = {
  type: "object",
  required: ["status"],
  additionalProperties: false,
  properties: { status: { type: "string", enum: ["ok"] } },
} as const;
