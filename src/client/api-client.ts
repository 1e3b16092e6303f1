/**
 * The HTTP API client: typed calls of the spec's operations over the transport (one
 * keep-alive HTTP client, a deadline per attempt, retries, lossless parsing, typed errors).
 */
import { serializeBatchRequest } from "../api/batch.js";
import { CHANGE_REASON_HEADER, encodeChangeReason } from "../api/change-reason.js";
import type {
  BatchChangeResult,
  BatchRequest,
  BatchResponse,
  ChangeFeedPage,
  InventoryChange,
  InventoryItem,
  Order,
  Pet,
} from "../api/types.js";
import {
  BatchRejectedError,
  CountChangesRefusedError,
  isBatchRejection,
  refusesCountChanges,
} from "./batch-errors.js";
import {
  decodeBatchResponse,
  decodeBatchResults,
  decodeChangeFeedPage,
  decodeInventoryChanges,
  decodeInventoryItem,
  decodeInventoryList,
  decodeInventoryQuantities,
  decodeOrderList,
  decodePet,
  ShapeError,
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
  /**
   * The feed seq the entry holds as of (`Inventory-Seq`); undefined from a server that does
   * not say (never guessed).
   */
  seq: bigint | undefined;
}

/** The whole inventory and the seq it holds as of (undefined from a server that does not say). */
export interface InventorySnapshot {
  items: InventoryItem[];
  seq: bigint | undefined;
}

/**
 * The answer to a batch and the seq it holds as of (`Inventory-Seq`: its own last change's, or
 * the latest it reflects when it changed nothing; a replay's, the one it was first given);
 * undefined from a server that does not say, and on the replay of an answer kept by a server
 * that kept none (never guessed).
 */
export interface BatchAnswer extends BatchResponse {
  seq?: bigint | undefined;
}

/** `Inventory-Seq`, when the answer has a well-formed one. */
function seqOf(headers: Readonly<Record<string, string>>): bigint | undefined {
  const value = headers["inventory-seq"];
  return value !== undefined && /^(0|[1-9][0-9]{0,18})$/.test(value) ? BigInt(value) : undefined;
}

/** How a PATCH is made conditional, and why it is made. */
export interface UpdateConditions {
  /** `If-Match`: the write happens only while the entry still has this tag (else 412). */
  ifMatch?: string | undefined;
  /** `X-Change-Reason`, kept in the entry's history (checked by api/change-reason.ts first). */
  reason?: string | undefined;
}

/** Why a batch is sent. */
export interface BatchOptions {
  /** `X-Change-Reason`, kept in the history of every change the batch applies. */
  reason?: string | undefined;
}

/** How a page of the change feed is asked for. */
export interface FeedRequestOptions {
  /** A long poll: how long the server may wait for a change past the cursor (0 to 60 s). */
  waitSeconds?: number | undefined;
  /** Aborts the request in flight and its retries. */
  signal?: AbortSignal | undefined;
}

/** The operations of the service the CLI uses. */
export interface ApiClient {
  listInventory(): Promise<InventoryItem[]>;
  /** The same `GET /inventory`, with the seq its entries hold as of (a count sheet's). */
  listInventorySnapshot(): Promise<InventorySnapshot>;
  /**
   * The same `GET /inventory`, read into each pet's quantity by petId: what `apply` plans
   * with, without an entry object per pet.
   */
  listInventoryQuantities(): Promise<Map<bigint, number>>;
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
  /**
   * Sends a batch of changes (`POST /inventory/batch`): one intended change as a whole, with
   * its own Idempotency-Key, so retries (network errors, 429, 5xx) are safe as a PATCH's are.
   * The answer has one result per change, in request order. A rejected atomic batch (409) is
   * a BatchRejectedError carrying the results; a server without the batch route answers 404
   * or 405 (batch-errors.ts: isMissingBatchRoute); a server without count changes refuses a
   * batch holding counts with a CountChangesRefusedError (isCountsRefusal), nothing applied.
   */
  applyBatch(request: BatchRequest, options?: BatchOptions): Promise<BatchAnswer>;
  /** The entry's latest `limit` changes, newest first. */
  getInventoryHistory(petId: bigint, limit: number): Promise<InventoryChange[]>;
  /**
   * A page of the change feed (`GET /inventory/changes`): at most `limit` changes with a seq
   * above `after`, in seq order, and the cursor to ask after next. With `waitSeconds` the
   * server holds the request up to that long while no change is past `after` (a long poll);
   * the attempt's time-out is extended by as much. `signal` gives the call up.
   */
  listInventoryChanges(
    after: bigint,
    limit: number,
    options?: FeedRequestOptions,
  ): Promise<ChangeFeedPage>;
  getPet(petId: bigint): Promise<Pet>;
  listOrders(): Promise<Order[]>;
}

/** Headers of a write: its Idempotency-Key, and its reason when one is given. */
function writeHeaders(key: string, reason: string | undefined): Record<string, string> {
  return {
    "idempotency-key": key,
    ...(reason === undefined ? {} : { [CHANGE_REASON_HEADER]: encodeChangeReason(reason) }),
  };
}

/** Whether a change of a batch is a count (`count` as of `asOf`). */
function isCount(change: BatchRequest["changes"][number]): boolean {
  return change.count !== undefined;
}

/** Checks that the results answer the changes sent: as many, in order, for the same pets. */
function matchResults(request: BatchRequest, results: BatchChangeResult[], path: string) {
  const { changes } = request;
  if (results.length !== changes.length) {
    throw new ShapeError(path, `one result for each of the ${changes.length} changes sent`);
  }
  for (let index = 0; index < results.length; index += 1) {
    if (results[index]?.petId !== changes[index]?.petId) {
      throw new ShapeError(`${path}[${index}].petId`, `the petId of changes[${index}]`);
    }
  }
  return results;
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
    listInventorySnapshot: () =>
      send({
        operation: "listInventory",
        method: "GET",
        path: "/inventory",
        decode: (body, response) => ({
          items: decodeInventoryList(body),
          seq: seqOf(response.headers),
        }),
      }),
    listInventoryQuantities: () =>
      send({
        operation: "listInventory",
        method: "GET",
        path: "/inventory",
        decode: (body) => decodeInventoryQuantities(body),
      }),
    getInventoryItem: (petId) =>
      send({
        operation: "getInventoryItem",
        method: "GET",
        path: `/inventory/${petId.toString()}`,
        decode: (body, response) => ({
          item: decodeInventoryItem(body),
          etag: response.headers.etag,
          seq: seqOf(response.headers),
        }),
      }),
    updateInventory: (petId, quantity, conditions = {}) =>
      send({
        operation: "updateInventory",
        method: "PATCH",
        path: `/inventory/${petId.toString()}`,
        body: { quantity },
        headers: {
          ...writeHeaders(options.idempotencyKey(), conditions.reason),
          ...(conditions.ifMatch === undefined ? {} : { "if-match": conditions.ifMatch }),
        },
        decode: (body, response) => ({
          item: decodeInventoryItem(body),
          etag: response.headers.etag,
          seq: seqOf(response.headers),
        }),
      }),
    applyBatch: (request, batchOptions = {}) =>
      send({
        operation: "applyInventoryBatch",
        method: "POST",
        path: "/inventory/batch",
        body: serializeBatchRequest(request),
        headers: writeHeaders(options.idempotencyKey(), batchOptions.reason),
        decode: (body, response): BatchAnswer => {
          const answer: BatchAnswer = decodeBatchResponse(body);
          matchResults(request, answer.results, ".results");
          const seq = seqOf(response.headers);
          if (seq !== undefined) answer.seq = seq;
          return answer;
        },
        decodeError: (error, body, headers) => {
          if (refusesCountChanges(error) && request.changes.some(isCount)) {
            return new CountChangesRefusedError(error);
          }
          if (!isBatchRejection(error)) return error;
          const results = decodeBatchResults(
            typeof body === "object" && body !== null
              ? (body as { results?: unknown }).results
              : undefined,
            ".results",
          );
          return new BatchRejectedError(
            error,
            matchResults(request, results, ".results"),
            seqOf(headers),
          );
        },
      }),
    getInventoryHistory: (petId, limit) =>
      send({
        operation: "getInventoryHistory",
        method: "GET",
        path: `/inventory/${petId.toString()}/history?limit=${limit}`,
        decode: (body) => decodeInventoryChanges(body),
      }),
    listInventoryChanges: (after, limit, { waitSeconds = 0, signal } = {}) =>
      send({
        operation: "listInventoryChanges",
        method: "GET",
        path: `/inventory/changes?after=${after.toString()}&limit=${limit}${waitSeconds > 0 ? `&wait=${waitSeconds}` : ""}`,
        waitMs: waitSeconds * 1000,
        signal,
        decode: (body, response) => {
          const page = decodeChangeFeedPage(body, after, limit);
          return page.changes.length === 0 ? { ...page, latestSeq: seqOf(response.headers) } : page;
        },
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
