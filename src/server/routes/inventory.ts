/** GET /inventory and PATCH /inventory/{petId}. */
import type { FastifyPluginAsync } from "fastify";
import { ERROR_CODES } from "../../api/error-codes.js";
import { errorSchema, inventoryItemSchema, inventoryUpdateSchema } from "../../api/schemas.js";
import type { InventoryItem, InventoryUpdate } from "../../api/types.js";
import { HttpError } from "../http-error.js";
import { serviceUnavailable } from "../service-unavailable.js";
import type { Store } from "../store/store.js";
import { rejectOtherMethods } from "./method-not-allowed.js";
import { petIdOf } from "./pet-id.js";

/** Serializes the inventory exactly, int64 `petId` included, as the JSON array the spec describes. */
export function serializeInventory(items: readonly InventoryItem[]): string {
  return `[${items
    .map(
      (item) =>
        `{"petId":${item.petId},"quantity":${item.quantity},"status":${JSON.stringify(item.status)}}`,
    )
    .join(",")}]`;
}

export const inventoryRoutes: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  // The serialized inventory, reused until the store's revision changes.
  let cached: { revision: string; body: Buffer } | undefined;

  app.get("/inventory", async (_request, reply) => {
    const revision = await store.revision();
    if (cached?.revision !== revision) {
      cached = { revision, body: Buffer.from(serializeInventory(await store.listInventory())) };
    }
    return reply.type("application/json; charset=utf-8").send(cached.body);
  });

  app.patch<{ Params: { petId: string }; Body: InventoryUpdate }>(
    "/inventory/:petId",
    {
      // The path parameter is checked by petIdOf so that a bad id is `invalid_pet_id`.
      preValidation: (request, _reply, done) => {
        petIdOf(request);
        done();
      },
      schema: {
        body: inventoryUpdateSchema,
        response: { 200: inventoryItemSchema, "4xx": errorSchema, 503: errorSchema },
      },
    },
    async (request) => {
      const petId = petIdOf(request);
      const result = await store.updateQuantity(petId, request.body.quantity);
      switch (result.kind) {
        case "updated":
          return result.item;
        case "not_found":
          throw new HttpError(404, ERROR_CODES.petNotFound, `no pet with petId ${petId}`);
        case "busy":
          throw serviceUnavailable(
            "the database is locked by another process; nothing was changed, retry later",
          );
      }
    },
  );

  rejectOtherMethods(app, "/inventory", ["GET"]);
  rejectOtherMethods(app, "/inventory/:petId", ["PATCH"]);
};
