/**
 * The HTTP API client: typed calls of the spec's operations over the transport (one
 * keep-alive HTTP client, a deadline per attempt, retries, lossless parsing, typed errors).
 */
import { CHANGE_REASON_HEADER, encodeChangeReason } from "../api/change-reason.js";
import type { InventoryChange, InventoryItem, Order, Pet } from "../api/types.js";
import {
  decodeInventoryChanges,
  decodeInventoryItem,
  decodeInventoryList,
  decodeOrderList,
  decodePet,
} from "./decode.js";
import { createTransport, type TransportOptions } from "./transport.js";

export type { DeprecationNotice, TraceEvent } from "./transport.js";

export interface ApiClientOptions extends TransportOptions {
  /**
   * A new Idempotency-Key (a random UUID) for each intended change: every PATCH gets one, and
   * the retries of that PATCH resend it.
   */
  idempotencyKey: () => string;
}

/** One entry and its entity tag (undefined when the server sent none). */
export interface TaggedInventoryItem {
  item: InventoryItem;
  etag: string | undefined;
}

/** How a PATCH is made conditional, and why it is made. */
export interface UpdateConditions {
  /** `If-Match`: the write happens only while the entry still has this tag (else 412). */
  ifMatch?: string | undefined;
  /** `X-Change-Reason`, kept in the entry's history (checked by api/change-reason.ts first). */
  reason?: string | undefined;
}

/** The operations of the service the CLI uses. */
export interface ApiClient {
  listInventory(): Promise<InventoryItem[]>;
  getInventoryItem(petId: bigint): Promise<TaggedInventoryItem>;
  /**
   * Sets one entry's quantity: one intended change, with its own Idempotency-Key. A 412
   * (the If-Match no longer holds) is an ApiError whose `etag` is the entry's current tag.
   */
  updateInventory(
    petId: bigint,
    quantity: number,
    conditions?: UpdateConditions,
  ): Promise<TaggedInventoryItem>;
  /** The entry's latest `limit` changes, newest first. */
  getInventoryHistory(petId: bigint, limit: number): Promise<InventoryChange[]>;
  getPet(petId: bigint): Promise<Pet>;
  listOrders(): Promise<Order[]>;
}

/** Builds a client for one target. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const { send } = createTransport(options);
  // GETs are safe to repeat. A PATCH is not, by itself: a retry after a lost response could
  // apply a conditional or computed change twice, or overwrite a newer value. So each PATCH
  // carries an Idempotency-Key that its retries (network errors, 429, 5xx) resend unchanged:
  // the server applies the change once and replays its answer to the retries.
  return {
    listInventory: () =>
      send({
        operation: "listInventory",
        method: "GET",
        path: "/inventory",
        decode: (body) => decodeInventoryList(body),
      }),
    getInventoryItem: (petId) =>
      send({
        operation: "getInventoryItem",
        method: "GET",
        path: `/inventory/${petId.toString()}`,
        decode: (body, response) => ({
          item: decodeInventoryItem(body),
          etag: response.headers.etag,
        }),
      }),
    updateInventory: (petId, quantity, conditions = {}) =>
      send({
        operation: "updateInventory",
        method: "PATCH",
        path: `/inventory/${petId.toString()}`,
        body: { quantity },
        headers: {
          "idempotency-key": options.idempotencyKey(),
          ...(conditions.ifMatch === undefined ? {} : { "if-match": conditions.ifMatch }),
          ...(conditions.reason === undefined
            ? {}
            : { [CHANGE_REASON_HEADER]: encodeChangeReason(conditions.reason) }),
        },
        decode: (body, response) => ({
          item: decodeInventoryItem(body),
          etag: response.headers.etag,
        }),
      }),
    getInventoryHistory: (petId, limit) =>
      send({
        operation: "getInventoryHistory",
        method: "GET",
        path: `/inventory/${petId.toString()}/history?limit=${limit}`,
        decode: (body) => decodeInventoryChanges(body),
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
