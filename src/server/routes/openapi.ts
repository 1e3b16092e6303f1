/** GET /openapi.json: the OpenAPI 3.1 document the server is built from. */
import type { FastifyPluginAsync } from "fastify";
import { buildOpenApiDocument } from "../../api/openapi.js";
import { rejectOtherMethods } from "./method-not-allowed.js";

export const openApiRoutes: FastifyPluginAsync = async (app) => {
  const body = JSON.stringify(buildOpenApiDocument());
  app.get("/openapi.json", (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(body),
  );
  rejectOtherMethods(app, "/openapi.json", ["GET"]);
};
