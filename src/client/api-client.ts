/**
 * The HTTP API client: typed calls of the spec's operations over the transport (one
 * undici dispatcher, a deadline per attempt, retries, lossless parsing, typed errors).
 */
import type { InventoryItem, Order, Pet } from "../api/types.js";
import { decodeInventoryItem, decodeInventoryList, decodeOrderList, decodePet } from "./decode.js";
import { createTransport, type TransportOptions } from "./transport.js";

export type { DeprecationNotice, TraceEvent } from "./transport.js";

export type ApiClientOptions = TransportOptions;

/** The operations of the service the CLI uses. */
export interface ApiClient {
  listInventory(): Promise<InventoryItem[]>;
  updateInventory(petId: bigint, quantity: number): Promise<InventoryItem>;
  getPet(petId: bigint): Promise<Pet>;
  listOrders(): Promise<Order[]>;
}

/** Builds a client for one target. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const { send } = createTransport(options);
  // Every call is safe to repeat: PATCH sets an absolute quantity, so a retry after a lost
  // response cannot double-apply.
  return {
    listInventory: () =>
      send({
        operation: "listInventory",
        method: "GET",
        path: "/inventory",
        decode: (body) => decodeInventoryList(body),
      }),
    updateInventory: (petId, quantity) =>
      send({
        operation: "updateInventory",
        method: "PATCH",
        path: `/inventory/${petId.toString()}`,
        body: { quantity },
        decode: (body) => decodeInventoryItem(body),
      }),
    getPet: (petId) =>
      send({
        operation: "getPetById",
        method: "GET",
        path: `/pets/${petId.toString()}`,
        decode: (body) => decodePet(body),
      }),
    listOrders: () =>
      send({
        operation: "listOrders",
        method: "GET",
        path: "/store/orders",
        decode: (body) => decodeOrderList(body),
      }),
  };
}
