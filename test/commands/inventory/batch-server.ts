/**
 * A batch endpoint on HTTP stubs for command tests of `inventory apply` and `inventory
 * adjust --file`: it keeps stock and refs in memory and decides and answers each batch with
 * the server's own code (store/write-plan.ts's planWrites, the route's renderBatch), so the
 * rules live once; test/server proves them on the real stores.
 */
import { parseExactJson } from "../../../src/api/exact-json.js";
import { readBatchRequest } from "../../../src/api/batch.js";
import { renderBatch } from "../../../src/server/routes/inventory-batch.js";
import { planWrites, RefSet } from "../../../src/server/store/write-plan.js";
import type { HttpStubs } from "../fake-deps.js";

export interface BatchServer {
  /** The stock, by petId; pets not in it are unknown (not_found). */
  stock: Map<bigint, number>;
  /** The refs applied: kept for good, as the server does. */
  refs: RefSet;
  /** Each batch request received, as the server read it. */
  requests: { atomic: boolean; dryRun: boolean; size: number; key: string | undefined }[];
}

const JSON_HEADERS = { "content-type": "application/json" };

function text(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    typeof field === "bigint" ? Number(field) : field,
  );
}

/**
 * Answers `POST /v1/inventory/batch` `times` times (and `GET /v1/inventory` once when
 * `listed`), from `stock` and the refs already applied (`refs`: another run's, to run a
 * file again on new stubs).
 */
export function serveBatches(
  stubs: HttpStubs,
  stock: Map<bigint, number>,
  {
    times = 1,
    listed = true,
    refs = new RefSet(),
  }: { times?: number; listed?: boolean; refs?: RefSet } = {},
): BatchServer {
  const server: BatchServer = { stock, refs, requests: [] };
  if (listed) {
    stubs.on("GET", "/v1/inventory").reply(() => ({
      status: 200,
      body: text([...stock].map(([petId, quantity]) => ({ petId, quantity, status: "available" }))),
      headers: JSON_HEADERS,
    }));
  }
  stubs
    .on("POST", "/v1/inventory/batch")
    .reply((request) => {
      const reading = readBatchRequest(parseExactJson(request.body));
      if (!reading.ok) throw new Error(`the CLI sent an invalid batch: ${reading.problem}`);
      const batch = reading.request;
      server.requests.push({
        atomic: batch.atomic,
        dryRun: batch.dryRun,
        size: batch.changes.length,
        key: request.headers["idempotency-key"],
      });
      // The server's own rules (the planner every store calls) on this stock and these refs.
      const entries = new Map(
        [...stock].map(([petId, quantity]) => [
          petId,
          { petId, quantity, status: "available" as const },
        ]),
      );
      const plan = planWrites([{ kind: "batch", batch, options: {} }], {
        entries,
        keys: new Map(),
        refs,
      });
      for (const [petId, quantity] of plan.quantities) stock.set(petId, quantity);
      for (const { petId, ref } of plan.changes) if (ref !== null) refs.add(petId, ref);
      const [result] = plan.results;
      if (result?.kind !== "evaluated") throw new Error("a batch without a key was not evaluated");
      // The server's own answer to it, as the route renders it.
      const answer = renderBatch(result);
      return { status: answer.status, body: answer.body, headers: JSON_HEADERS };
    })
    .times(times);
  return server;
}

/** Stock of pets 1..count, each holding `quantity`. */
export function stockOf(count: number, quantity: number): Map<bigint, number> {
  return new Map(Array.from({ length: count }, (_, i) => [BigInt(i + 1), quantity]));
}
