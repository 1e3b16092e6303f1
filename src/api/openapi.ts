/** Builds the OpenAPI 3.1 document of the service from the shared schemas. */
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

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ref("Error") } },
});

const responses = {
  badRequest: errorResponse("The body is missing required fields or contains invalid values"),
  unauthorized: {
    ...errorResponse("The API key is missing or invalid"),
    headers: {
      "WWW-Authenticate": {
        description: 'Bearer challenge, e.g. `Bearer realm="petstore"`',
        schema: { type: "string" },
      },
    },
  },
  notFound: errorResponse("The requested resource (the pet) could not be found"),
  other: errorResponse("Any other error: unsupported media type, body too large, server error"),
};

const petIdParameter = (description: string) => ({
  name: "petId",
  in: "path",
  required: true,
  description,
  schema: { type: "integer", format: "int64", minimum: 1 },
});

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
              content: { "application/json": { schema: ref("InventoryList") } },
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
            content: { "application/json": { schema: ref("InventoryUpdate") } },
          },
          responses: {
            "200": {
              description: "The updated inventory entry",
              content: { "application/json": { schema: ref("InventoryItem") } },
            },
            "400": responses.badRequest,
            "401": responses.unauthorized,
            "404": responses.notFound,
            default: responses.other,
          },
        },
      },
      "/pets/{petId}": {
        get: {
          operationId: "getPetById",
          tags: ["pets"],
          summary: "Returns one pet",
          deprecated: true,
          parameters: [petIdParameter("The ID of the pet")],
          responses: {
            "200": {
              description: "The pet",
              headers: {
                Deprecation: {
                  description: "When the operation was deprecated (RFC 9745)",
                  schema: { type: "string" },
                },
                Sunset: {
                  description: "When the operation will stop working (RFC 8594)",
                  schema: { type: "string" },
                },
              },
              content: { "application/json": { schema: ref("Pet") } },
            },
            "400": errorResponse("The pet ID is not a positive int64"),
            "401": responses.unauthorized,
            "404": errorResponse("No pet with this ID exists"),
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
              content: {
                "application/json": { schema: { type: "array", items: ref("Order") } },
              },
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
