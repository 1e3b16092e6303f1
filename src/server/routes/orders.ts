/** GET /store/orders: the order listing. */
import type { FastifyPluginAsync } from "fastify";
import { orderListSchema } from "../../api/schemas.js";
import type { Store } from "../store/store.js";
import { rejectOtherMethods } from "./method-not-allowed.js";

export const orderRoutes: FastifyPluginAsync<{ store: Store }> = async (app, { store }) => {
  app.get("/store/orders", { schema: { response: { 200: orderListSchema } } }, () =>
    store.listOrders(),
  );
  rejectOtherMethods(app, "/store/orders", ["GET"]);
};
