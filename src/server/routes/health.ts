/** GET /healthz: for load balancers, without a key: 503 while the database is unreachable. */
import type { FastifyPluginAsync } from "fastify";
import { errorSchema, healthSchema } from "../../api/schemas.js";
import type { Store } from "../store/store.js";
import { rejectOtherMethods } from "./method-not-allowed.js";

export const healthRoutes: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  app.get(
    "/healthz",
    { schema: { response: { 200: healthSchema, 503: errorSchema } } },
    async () => {
      // A store that cannot reach its database rejects; the error handler answers 503.
      await store.ping();
      return { status: "ok" };
    },
  );
  rejectOtherMethods(app, "/healthz", ["GET"]);
};
