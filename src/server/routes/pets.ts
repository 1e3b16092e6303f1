/** GET /pets/{petId}: the deprecated pet lookup. */
import type { FastifyPluginAsync } from "fastify";
import { PET_LOOKUP_DEPRECATION_HEADERS } from "../../api/deprecation.js";
import { ERROR_CODES } from "../../api/error-codes.js";
import { errorSchema, petSchema } from "../../api/schemas.js";
import { HttpError } from "../http-error.js";
import type { Store } from "../store/store.js";
import { rejectOtherMethods } from "./method-not-allowed.js";
import { petIdOf } from "./pet-id.js";

export const petRoutes: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  app.get<{ Params: { petId: string } }>(
    "/pets/:petId",
    {
      onRequest: (_request, reply, done) => {
        void reply.headers(PET_LOOKUP_DEPRECATION_HEADERS);
        done();
      },
      schema: { response: { 200: petSchema, "4xx": errorSchema } },
    },
    async (request) => {
      const petId = petIdOf(request);
      const pet = await store.getPet(petId);
      if (!pet) throw new HttpError(404, ERROR_CODES.petNotFound, `no pet with petId ${petId}`);
      return pet;
    },
  );
  rejectOtherMethods(app, "/pets/:petId", ["GET"]);
};
