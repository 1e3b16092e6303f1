/** Builds the OpenAPI 3.1 document of the service from the shared schemas. */
import { PET_LOOKUP_DEPRECATION_HEADERS, PET_LOOKUP_SUNSET_AT } from "./deprecation.js";
import {
  inventoryItemExamples,
  inventoryListExamples,
  inventoryUpdateExamples,
  invalidBodyExamples,
  invalidPetIdExamples,
  orderListExamples,
  otherErrorExamples,
  petExamples,
  petNotFoundExamples,
  unauthorizedExamples,
  unavailableExamples,
  type Example,
} from "./openapi-examples.js";
import {
  errorSchema,
  inventoryItemSchema,
  inventoryListSchema,
  inventoryUpdateSchema,
  orderSchema,
  petSchema,
  petStatusSchema,
} from "./schemas.js";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const json = (schema: object, examples: Record<string, Example>) => ({
  "application/json": { schema, examples },
});

/** An error response whose body is the Error schema with `status` equal to the HTTP status. */
const errorResponse = (status: number, description: string, examples: Record<string, Example>) => ({
  description,
  content: json({ allOf: [ref("Error"), { properties: { status: { const: status } } }] }, examples),
});

const responses = {
  badRequest: errorResponse(
    400,
    "The body is missing required fields or contains invalid values, or the petId is not a positive int64",
    invalidBodyExamples,
  ),
  unauthorized: {
    ...errorResponse(401, "The API key is missing or invalid", unauthorizedExamples),
    headers: {
      "WWW-Authenticate": {
        description:
          'The Bearer challenge (RFC 6750): `Bearer realm="petstore"`, with `error="invalid_token"` when a key was sent but is not accepted',
        required: true,
        schema: { type: "string", pattern: "^Bearer ", examples: ['Bearer realm="petstore"'] },
      },
    },
  },
  notFound: errorResponse(
    404,
    "The requested resource (the pet) could not be found",
    petNotFoundExamples,
  ),
  unavailable: {
    ...errorResponse(
      503,
      "The server cannot serve the request now: another process (a backup, a second server) held the database's lock for longer than the server waits (5 s by default). Nothing was changed; retry after `Retry-After`",
      unavailableExamples,
    ),
    headers: {
      "Retry-After": {
        description: "Seconds to wait before retrying",
        required: true,
        schema: { type: "string", pattern: "^[0-9]+$", examples: ["1"] },
      },
    },
  },
  other: {
    description:
      "Any other error: unsupported media type, body too large, the database locked by another process for longer than the server waits (503 `unavailable`, with `Retry-After`), server error",
    content: json(ref("Error"), otherErrorExamples),
  },
};

const petIdParameter = (description: string) => ({
  name: "petId",
  in: "path",
  required: true,
  description,
  schema: { type: "integer", format: "int64", minimum: 1 },
});

/** The headers every answer of the deprecated pet lookup carries. */
const deprecationHeaders = {
  Deprecation: {
    description: "When the operation was deprecated, as `@<unix-seconds>` (RFC 9745)",
    required: true,
    schema: {
      type: "string",
      pattern: "^@[0-9]+$",
      examples: [PET_LOOKUP_DEPRECATION_HEADERS.deprecation],
    },
  },
  Sunset: {
    description: "When the operation stops working, as an HTTP-date (RFC 8594)",
    required: true,
    schema: {
      type: "string",
      pattern:
        "^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$",
      examples: [PET_LOOKUP_DEPRECATION_HEADERS.sunset],
    },
  },
};

/** The document served at `/v1/openapi.json`. */
export function buildOpenApiDocument() {
  return {
    openapi: "3.1.0",
    info: {
      title: "Pet Store Inventory Service",
      version: "1.0.0",
      description: "Stock levels for the animals (pets) of a pet store.",
      license: { name: "MIT", identifier: "MIT" },
    },
    // Relative: resolved against where this document is served, `<origin>/v1/openapi.json`.
    servers: [{ url: "/v1", description: "This server" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "inventory", description: "Stock levels" },
      { name: "pets", description: "Pet records" },
      { name: "store", description: "Store orders" },
    ],
    paths: {
      "/inventory": {
        get: {
          operationId: "listInventory",
          tags: ["inventory"],
          summary: "Returns the current stock levels for all pets in the store",
          responses: {
            "200": {
              description: "An array of inventory entries",
              content: json(ref("InventoryList"), inventoryListExamples),
            },
            "401": responses.unauthorized,
            default: responses.other,
          },
        },
      },
      "/inventory/{petId}": {
        patch: {
          operationId: "updateInventory",
          tags: ["inventory"],
          summary: "Sets the stock quantity of one pet",
          description:
            "Experimental: the request shape may change before the operation becomes stable.",
          "x-stability": "experimental",
          parameters: [petIdParameter("The ID of the pet whose stock is updated")],
          requestBody: {
            required: true,
            content: json(ref("InventoryUpdate"), inventoryUpdateExamples),
          },
          responses: {
            "200": {
              description: "The updated inventory entry",
              content: json(ref("InventoryItem"), inventoryItemExamples),
            },
            "400": responses.badRequest,
            "401": responses.unauthorized,
            "404": responses.notFound,
            "503": responses.unavailable,
            default: responses.other,
          },
        },
      },
      "/pets/{petId}": {
        get: {
          operationId: "getPetById",
          tags: ["pets"],
          summary: "Returns one pet",
          description: `Deprecated: stops working after ${PET_LOOKUP_SUNSET_AT.toISOString()}. Every answer but a 401 carries the Deprecation and Sunset headers.`,
          deprecated: true,
          parameters: [petIdParameter("The ID of the pet")],
          responses: {
            "200": {
              description: "The pet",
              headers: deprecationHeaders,
              content: json(ref("Pet"), petExamples),
            },
            "400": {
              ...errorResponse(400, "The pet ID is not a positive int64", invalidPetIdExamples),
              headers: deprecationHeaders,
            },
            "401": responses.unauthorized,
            "404": {
              ...errorResponse(404, "No pet with this ID exists", petNotFoundExamples),
              headers: deprecationHeaders,
            },
            default: responses.other,
          },
        },
      },
      "/store/orders": {
        get: {
          operationId: "listOrders",
          tags: ["store"],
          summary: "Returns the store's orders",
          responses: {
            "200": {
              description: "An array of orders",
              content: json({ type: "array", items: ref("Order") }, orderListExamples),
            },
            "401": responses.unauthorized,
            default: responses.other,
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "The API key, as `Authorization: Bearer <API_KEY>`",
        },
      },
      schemas: {
        PetStatus: petStatusSchema,
        InventoryItem: {
          ...inventoryItemSchema,
          properties: { ...inventoryItemSchema.properties, status: ref("PetStatus") },
        },
        InventoryList: { ...inventoryListSchema, items: ref("InventoryItem") },
        InventoryUpdate: inventoryUpdateSchema,
        Error: errorSchema,
        Pet: { ...petSchema, properties: { ...petSchema.properties, status: ref("PetStatus") } },
        Order: orderSchema,
      },
    },
  };
}
