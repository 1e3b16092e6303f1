/**
 * GET /inventory, GET and PATCH /inventory/{petId}, GET /inventory/{petId}/history
 * (POST /inventory/batch is inventory-batch.ts).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ERROR_CODES } from "../../api/error-codes.js";
import { CHANGE_REASON_HEADER } from "../../api/change-reason.js";
import { IDEMPOTENT_REPLAYED_HEADER, entityTagOf } from "../../api/etag.js";
import { DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT, readWholeNumber } from "../../api/limits.js";
import { errorSchema, inventoryItemSchema, inventoryUpdateSchema } from "../../api/schemas.js";
import type { InventoryItem, InventoryUpdate } from "../../api/types.js";
import { parseChangeReason } from "../change-reason.js";
import { HttpError } from "../http-error.js";
import { fingerprintOf, parseIdempotencyKey } from "../idempotency.js";
import { conditionOf, parseIfMatch } from "../if-match.js";
import { lockedOut } from "../service-unavailable.js";
import type {
  ChangeAuthor,
  Replayed,
  Store,
  StoredResponse,
  UpdateOptions,
  WriteOutcome,
} from "../store/store.js";
import { serializeChanges } from "./change-json.js";
import { rejectOtherMethods } from "./method-not-allowed.js";
import { petIdOf } from "./pet-id.js";

/** One entry as JSON, int64 `petId` exact. */
function serializeItem(item: InventoryItem): string {
  return `{"petId":${item.petId},"quantity":${item.quantity},"status":${JSON.stringify(item.status)}}`;
}

/** Serializes the inventory exactly, int64 `petId` included, as the JSON array the spec describes. */
export function serializeInventory(items: readonly InventoryItem[]): string {
  return `[${items.map(serializeItem).join(",")}]`;
}

/**
 * A query parameter under the whole-number rule, from `min` to `max`; `fallback` when absent.
 * Anything else (a sign, a fraction, leading zeros, a repeated parameter) is 400 `code`.
 */
export function wholeNumberParameter(
  query: Record<string, unknown>,
  name: string,
  range: { min: bigint; max: bigint; fallback: bigint },
  code: string,
): bigint {
  const text = query[name];
  if (text === undefined) return range.fallback;
  const reading =
    typeof text === "string" ? readWholeNumber(text, range.min, range.max) : undefined;
  if (!reading?.ok) {
    throw new HttpError(
      400,
      code,
      `${name} must be a whole number from ${range.min} to ${range.max}, got ${JSON.stringify(text).slice(0, 40)}`,
    );
  }
  return reading.value;
}

/** The `limit` of a history request: 1 to 1000 under the whole-number rule, 20 when absent. */
function historyLimitOf(query: Record<string, unknown>): number {
  const range = {
    min: 1n,
    max: BigInt(MAX_HISTORY_LIMIT),
    fallback: BigInt(DEFAULT_HISTORY_LIMIT),
  };
  return Number(wholeNumberParameter(query, "limit", range, ERROR_CODES.invalidLimit));
}

/** The answer to a write's outcome, as sent and as kept for an idempotent replay. */
export function renderOutcome(petId: bigint, outcome: WriteOutcome): StoredResponse {
  switch (outcome.kind) {
    case "updated":
      return {
        status: 200,
        body: serializeItem(outcome.item),
        etag: entityTagOf(outcome.item.quantity),
      };
    case "not_found":
      return {
        status: 404,
        body: JSON.stringify(
          new HttpError(404, ERROR_CODES.petNotFound, `no pet with petId ${petId}`).toBody(),
        ),
        etag: null,
      };
    case "precondition_failed": {
      const etag = entityTagOf(outcome.current.quantity);
      return {
        status: 412,
        body: JSON.stringify(
          new HttpError(
            412,
            ERROR_CODES.preconditionFailed,
            `If-Match does not match: pet ${petId} holds quantity ${outcome.current.quantity} (ETag ${etag}); nothing was changed`,
          ).toBody(),
        ),
        etag,
      };
    }
  }
}

/**
 * The `code` of a rendered Error body, for the log line. Our error bodies are written with
 * `code` first (HttpError.toBody, renderBatch), so the start of the text is enough: a
 * rejected batch's body may hold 10,000 results.
 */
const ERROR_BODY_START = /^\{"code":"([a-z_]+)"/;

/** Sends a rendered answer (a write's, or one kept for a replay). */
export function send(reply: FastifyReply, response: StoredResponse): FastifyReply {
  if (response.etag !== null) void reply.header("etag", response.etag);
  if (response.status >= 400) reply.errorCode = ERROR_BODY_START.exec(response.body)?.[1] ?? "";
  return reply.code(response.status).type("application/json; charset=utf-8").send(response.body);
}

/**
 * `Inventory-Seq`: the change-feed seq of the last change an inventory answer reflects (a
 * count as of it is reconciled with every change after it). A replayed answer has the one it
 * was first given with, when its record kept one.
 */
export const INVENTORY_SEQ_HEADER = "inventory-seq";

/** The statuses of a write's answer that say their seq: 200, and 409 and 412 (nothing written). */
const ANSWERS_WITH_SEQ = new Set([200, 409, 412]);

/** What the inventory routes take: the store, the clock, and where applied changes are counted. */
export interface InventoryRouteOptions {
  store: Store;
  clock: () => number;
  /** Called with how many changes a request applied (the changes metric). */
  countChanges?: (count: number) => void;
}

export const inventoryRoutes: FastifyPluginAsync<InventoryRouteOptions> = async (
  app,
  { store, clock, countChanges },
) => {
  // The serialized inventory and its seq (read in one snapshot), reused until the store's
  // revision changes.
  let cached: { revision: string; body: Buffer; seq: string } | undefined;

  app.get("/inventory", async (_request, reply) => {
    const revision = await store.revision();
    if (cached?.revision !== revision) {
      const { items, seq } = await store.listInventory();
      cached = { revision, body: Buffer.from(serializeInventory(items)), seq: seq.toString() };
    }
    return reply
      .header(INVENTORY_SEQ_HEADER, cached.seq)
      .type("application/json; charset=utf-8")
      .send(cached.body);
  });

  app.get<{ Params: { petId: string } }>(
    "/inventory/:petId",
    {
      schema: { response: { 200: inventoryItemSchema, "4xx": errorSchema, 503: errorSchema } },
    },
    async (request, reply) => {
      const petId = petIdOf(request);
      const read = await store.getInventoryItem(petId);
      if (!read) throw new HttpError(404, ERROR_CODES.petNotFound, `no pet with petId ${petId}`);
      return reply
        .header("etag", entityTagOf(read.item.quantity))
        .header(INVENTORY_SEQ_HEADER, read.seq.toString())
        .send(read.item);
    },
  );

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
    async (request, reply) => {
      const petId = petIdOf(request);
      const { quantity } = request.body;
      const ifMatch = parseIfMatch(request.headers["if-match"]);
      const key = parseIdempotencyKey(headerValue(request.headers["idempotency-key"]));
      const options: UpdateOptions = { author: changeAuthorOf(request, clock) };
      if (ifMatch) options.condition = conditionOf(ifMatch);
      if (key !== undefined) {
        options.idempotency = {
          owner: request.callerKeyDigest,
          key,
          fingerprint: fingerprintOf({ petId, quantity, ifMatch }),
          at: clock(),
          render: (outcome) => renderOutcome(petId, outcome),
        };
      }
      const result = await store.updateQuantity(petId, quantity, options);
      switch (result.kind) {
        case "updated":
          countChanges?.(1);
          if (result.seq !== undefined)
            void reply.header(INVENTORY_SEQ_HEADER, result.seq.toString());
          return send(reply, renderOutcome(petId, result));
        case "precondition_failed":
          if (result.seq !== undefined)
            void reply.header(INVENTORY_SEQ_HEADER, result.seq.toString());
          return send(reply, renderOutcome(petId, result));
        case "not_found":
          return send(reply, renderOutcome(petId, result));
        default:
          return answerUnwritten(reply, result, "another petId, body or If-Match", "change");
      }
    },
  );

  app.get<{ Params: { petId: string }; Querystring: Record<string, unknown> }>(
    "/inventory/:petId/history",
    async (request, reply) => {
      const petId = petIdOf(request);
      const limit = historyLimitOf(request.query);
      const changes = await store.listChanges(petId, limit);
      if (!changes) throw new HttpError(404, ERROR_CODES.petNotFound, `no pet with petId ${petId}`);
      return reply.type("application/json; charset=utf-8").send(serializeChanges(changes));
    },
  );

  rejectOtherMethods(app, "/inventory", ["GET"]);
  rejectOtherMethods(app, "/inventory/:petId", ["GET", "PATCH"]);
  rejectOtherMethods(app, "/inventory/:petId/history", ["GET"]);
};

/**
 * The answers of a write the store did not make, a PATCH's or a batch's: the kept answer of a
 * replay (`Idempotent-Replayed: true`), 422 for a key used for another request (`other` says
 * what differed), 503 while another process holds the database's lock.
 */
export function answerUnwritten(
  reply: FastifyReply,
  result: Replayed | { kind: "key_reused" } | { kind: "busy" },
  other: string,
  what: string,
): FastifyReply {
  switch (result.kind) {
    case "replayed":
      void reply.header(IDEMPOTENT_REPLAYED_HEADER, "true");
      if (result.seq !== null && ANSWERS_WITH_SEQ.has(result.response.status)) {
        void reply.header(INVENTORY_SEQ_HEADER, result.seq.toString());
      }
      return send(reply, result.response);
    case "key_reused":
      throw new HttpError(
        422,
        ERROR_CODES.idempotencyKeyReused,
        `this Idempotency-Key was already used for a different request (${other}); nothing was changed: use a new key for a new ${what}`,
      );
    case "busy":
      throw lockedOut();
  }
}

/** Who makes the request's changes: the key's name, the request id, `X-Change-Reason`. */
export function changeAuthorOf(request: FastifyRequest, clock: () => number): ChangeAuthor {
  return {
    at: clock(),
    keyName: request.callerKeyName === "" ? null : request.callerKeyName,
    requestId: request.id,
    reason: parseChangeReason(request.headers[CHANGE_REASON_HEADER]),
  };
}

/** A header Node may give as a list (when sent twice): a list is malformed here. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}
