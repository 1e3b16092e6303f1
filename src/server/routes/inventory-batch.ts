/**
 * POST /inventory/batch: many changes of stock in one request and one transaction (sets and
 * deltas, each with an optional `ifQuantity` and business `ref`; atomic or not; a dry run).
 * Its body may be 2 MiB (the other routes keep 16 KiB) and holds int64 `petId`s, which the
 * server's JSON reader (json-body.ts) keeps exact.
 */
import type { FastifyPluginAsync } from "fastify";
import { readBatchRequest } from "../../api/batch.js";
import { ERROR_CODES } from "../../api/error-codes.js";
import { BATCH_BODY_LIMIT } from "../../api/limits.js";
import { isFailedOutcome, type BatchChangeResult } from "../../api/types.js";
import { HttpError } from "../http-error.js";
import { batchFingerprintOf, parseIdempotencyKey } from "../idempotency.js";
import { readJsonBodies } from "../json-body.js";
import type { BatchEvaluation, BatchOptions, StoredResponse } from "../store/store.js";
import {
  type InventoryRouteOptions,
  answerUnwritten,
  changeAuthorOf,
  headerValue,
  INVENTORY_SEQ_HEADER,
  send,
} from "./inventory.js";
import { rejectOtherMethods } from "./method-not-allowed.js";

function serializeResult(result: BatchChangeResult): string {
  const head =
    `{"petId":${result.petId},"outcome":"${result.outcome}","previous":${result.previous},` +
    `"quantity":${result.quantity},"status":${result.status === null ? "null" : `"${result.status}"`}`;
  // A count's result says what it was reconciled with: the book as of its asOf, the net since.
  return result.counted === undefined
    ? `${head}}`
    : `${head},"book":${result.book ?? null},"since":${result.since ?? null},"counted":${result.counted},"variance":${result.variance ?? null}}`;
}

/**
 * The answer to a batch, as sent and as kept for an idempotent replay: 200 with the counts
 * and every result; 409 `batch_rejected` (the Error body and the results) for an atomic batch
 * a change failed, nothing written.
 */
export function renderBatch(evaluation: BatchEvaluation): StoredResponse {
  let changed = 0;
  let failed = 0;
  for (const { outcome } of evaluation.results) {
    if (outcome === "changed") changed++;
    else if (isFailedOutcome(outcome)) failed++;
  }
  const results = `[${evaluation.results.map(serializeResult).join(",")}]`;
  if (evaluation.rejected) {
    const message =
      `${failed} of ${evaluation.results.length} changes failed (see results); ` +
      "the batch is atomic, so nothing was changed";
    return {
      status: 409,
      body: `{"code":"${ERROR_CODES.batchRejected}","message":${JSON.stringify(message)},"status":409,"results":${results}}`,
      etag: null,
    };
  }
  const unchanged = evaluation.results.length - changed - failed;
  return {
    status: 200,
    body: `{"changed":${changed},"unchanged":${unchanged},"failed":${failed},"results":${results}}`,
    etag: null,
  };
}

export const inventoryBatchRoutes: FastifyPluginAsync<InventoryRouteOptions> = async (
  app,
  { store, clock, countChanges },
) => {
  // This plugin's own body limit: a batch may be 2 MiB.
  readJsonBodies(app, BATCH_BODY_LIMIT);

  app.post("/inventory/batch", { bodyLimit: BATCH_BODY_LIMIT }, async (request, reply) => {
    if (request.body === undefined) {
      throw new HttpError(400, ERROR_CODES.invalidBody, "a batch needs a JSON body");
    }
    const reading = readBatchRequest(request.body);
    if (!reading.ok) {
      throw new HttpError(400, ERROR_CODES.invalidBody, `${reading.problem}; nothing was changed`);
    }
    const batch = reading.request;
    const key = parseIdempotencyKey(headerValue(request.headers["idempotency-key"]));
    const options: BatchOptions = { author: changeAuthorOf(request, clock) };
    if (key !== undefined) {
      options.idempotency = {
        owner: request.callerKeyDigest,
        key,
        fingerprint: batchFingerprintOf(batch),
        at: clock(),
        render: renderBatch,
      };
    }
    const result = await store.applyBatch(batch, options);
    if (result.kind === "refused") {
      throw new HttpError(400, ERROR_CODES.invalidBody, `${result.problem}; nothing was changed`);
    }
    if (result.kind !== "evaluated") {
      return answerUnwritten(reply, result, "another batch", "batch");
    }
    if (result.seq !== undefined) void reply.header(INVENTORY_SEQ_HEADER, result.seq.toString());
    if (!batch.dryRun && !result.rejected) {
      countChanges?.(result.results.filter(({ outcome }) => outcome === "changed").length);
    }
    return send(reply, renderBatch(result));
  });

  rejectOtherMethods(app, "/inventory/batch", ["POST"]);
};
