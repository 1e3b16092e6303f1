/**
 * A batch endpoint on a MockAgent that keeps stock and refs as the real server does (sets,
 * deltas, ifQuantity, refs kept for good, dry run, atomic, results in order), for command
 * tests of `inventory apply` and `inventory adjust --file`. The real server's rules are
 * proven in test/server; this only has to answer like it.
 */
import type { MockAgent } from "undici";
import { parseExactJson } from "../../../src/api/exact-json.js";
import { readBatchRequest } from "../../../src/api/batch.js";
import type { BatchChangeResult } from "../../../src/api/types.js";
import { ORIGIN } from "../fake-deps.js";

export interface BatchServer {
  /** The stock, by petId; pets not in it are unknown (not_found). */
  stock: Map<bigint, number>;
  /** The refs applied, as `petId/ref`: kept for good, as the server keeps them. */
  refs: Set<string>;
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
 * file again on a new agent).
 */
export function serveBatches(
  agent: MockAgent,
  stock: Map<bigint, number>,
  {
    times = 1,
    listed = true,
    refs = new Set<string>(),
  }: { times?: number; listed?: boolean; refs?: Set<string> } = {},
): BatchServer {
  const server: BatchServer = { stock, refs, requests: [] };
  const pool = agent.get(ORIGIN);
  if (listed) {
    pool
      .intercept({ path: "/v1/inventory", method: "GET" })
      .reply(
        200,
        () =>
          text([...stock].map(([petId, quantity]) => ({ petId, quantity, status: "available" }))),
        { headers: JSON_HEADERS },
      );
  }
  pool
    .intercept({ path: "/v1/inventory/batch", method: "POST" })
    .reply((options) => {
      // The CLI sends its body as one string (undici's exchange passes it on as it is).
      const reading = readBatchRequest(parseExactJson(options.body as string));
      if (!reading.ok) throw new Error(`the CLI sent an invalid batch: ${reading.problem}`);
      const { atomic, dryRun, changes } = reading.request;
      const headers = options.headers as Record<string, string>;
      server.requests.push({
        atomic,
        dryRun,
        size: changes.length,
        key: headers["idempotency-key"],
      });
      const after = new Map(stock);
      const applied = new Set(refs);
      const results: BatchChangeResult[] = changes.map((change) => {
        const now = after.get(change.petId);
        if (now === undefined) {
          return {
            petId: change.petId,
            outcome: "not_found",
            previous: null,
            quantity: null,
            status: null,
          };
        }
        const same = (outcome: BatchChangeResult["outcome"]) => ({
          petId: change.petId,
          outcome,
          previous: now,
          quantity: now,
          status: "available" as const,
        });
        const ref = change.ref === undefined ? undefined : `${change.petId}/${change.ref}`;
        if (ref !== undefined && applied.has(ref)) return same("duplicate");
        if (change.ifQuantity !== undefined && change.ifQuantity !== now) return same("conflict");
        const next = change.delta === undefined ? change.quantity : now + change.delta;
        if (next < 0) return same("below_zero");
        if (next > 2147483647) return same("too_large");
        if (next === now) return same("unchanged");
        after.set(change.petId, next);
        if (ref !== undefined) applied.add(ref);
        return { ...same("changed"), quantity: next };
      });
      const count = (outcomes: string[]) =>
        results.filter((result) => outcomes.includes(result.outcome)).length;
      const failed = count(["conflict", "not_found", "below_zero", "too_large"]);
      if (atomic && failed > 0) {
        return {
          statusCode: 409,
          data: text({
            code: "batch_rejected",
            message: `${failed} of ${changes.length} changes failed; nothing was applied`,
            status: 409,
            results,
          }),
          responseOptions: { headers: JSON_HEADERS },
        };
      }
      if (!dryRun) {
        for (const [petId, quantity] of after) stock.set(petId, quantity);
        for (const ref of applied) refs.add(ref);
      }
      return {
        statusCode: 200,
        data: text({
          changed: count(["changed"]),
          unchanged: count(["unchanged", "duplicate"]),
          failed,
          results,
        }),
        responseOptions: { headers: JSON_HEADERS },
      };
    })
    .times(times);
  return server;
}

/** Stock of pets 1..count, each holding `quantity`. */
export function stockOf(count: number, quantity: number): Map<bigint, number> {
  return new Map(Array.from({ length: count }, (_, i) => [BigInt(i + 1), quantity]));
}
