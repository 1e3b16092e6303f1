/** GET /healthz: liveness for load balancers, without a key. */
import type { FastifyPluginAsync } from "fastify";
import { healthSchema } from "../../api/schemas.js";
import { rejectOtherMethods } from "./method-not-allowed.js";

export const healthRoutes: FastifyPluginAsync = async (app) => {
  app.get("/healthz", { schema: { response: { 200: healthSchema } } }, () => ({ status: "ok" }));
  rejectOtherMethods(app, "/healthz", ["GET"]);
};
