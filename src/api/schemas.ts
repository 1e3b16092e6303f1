/**
 * JSON Schemas of the spec's shapes. The server validates and serializes with
 * them and the OpenAPI document is built from them, so the two cannot drift.
 */
import { MAX_CHANGE_REASON_LENGTH } from "./change-reason.js";
import { MAX_QUANTITY, MIN_QUANTITY } from "./limits.js";
import { ORDER_STATUSES, PET_STATUSES } from "./types.js";

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

/** One record of an entry's history (`GET /inventory/{petId}/history` answers an array). */
export const inventoryChangeSchema = {
  type: "object",
  required: ["at", "petId", "previous", "quantity", "keyName", "requestId", "reason"],
  additionalProperties: false,
  properties: {
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
