/** GET /pets/{petId}: the deprecated pet lookup. */
import type { FastifyPluginAsync } from "fastify";
import { ERROR_CODES } from "../../api/error-codes.js";
import { errorSchema, petSchema } from "../../api/schemas.js";
import { HttpError } from "../http-error.js";
import type { Store } from "../store/store.js";
import { rejectOtherMethods } from "./method-not-allowed.js";
import { petIdOf } from "./pet-id.js";

/** When the lookup was deprecated (RFC 9745 `@<unix-seconds>`): 2026-01-01T00:00:00Z. */
export const PET_LOOKUP_DEPRECATED_AT = new Date("2026-01-01T00:00:00Z");
/** When the lookup goes away (RFC 8594 HTTP-date): 2027-07-01T00:00:00Z. */
export const PET_LOOKUP_SUNSET_AT = new Date("2027-07-01T00:00:00Z");

const deprecationHeaders = {
  deprecation: `@${PET_LOOKUP_DEPRECATED_AT.getTime() / 1000}`,
  sunset: PET_LOOKUP_SUNSET_AT.toUTCString(),
};

export const petRoutes: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  app.get<{ Params: { petId: string } }>(
    "/pets/:petId",
    {
      onRequest: (_request, reply, done) => {
        void reply.headers(deprecationHeaders);
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
