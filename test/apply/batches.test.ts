/**
 * The batch loop behind apply and adjust --file: requests of up to `size` changes in order,
 * and the decisions it takes once for both: the fallback (a 404 or 405 to the first request),
 * a first request that fails, a later one that fails, an interrupt (before the first request
 * or between two), a rejected atomic batch. Rows never sent are "not attempted", apart from
 * the failures.
 */
import { describe, expect, it } from "vitest";
import { sendInBatches, type BatchRunOptions } from "../../src/apply/batches.js";
import type { RowFailure } from "../../src/apply/row-failure.js";
import type { BatchChange, BatchChangeResult, BatchResponse } from "../../src/api/types.js";
import { BatchRejectedError, isMissingBatchRoute } from "../../src/client/batch-errors.js";
import { ApiError, NetworkError } from "../../src/client/errors.js";

function apiError(status: number, code: string, operation = "applyInventoryBatch" as const) {
  return new ApiError({
    status,
    code,
    message: `${status} ${code}`,
    operation,
    method: "POST",
    url: "http://x/v1/inventory/batch",
    attempts: status >= 500 ? 3 : 1,
  });
}

function changed(change: BatchChange): BatchChangeResult {
  return { petId: change.petId, outcome: "changed", previous: 0, quantity: 1, status: "sold" };
}

function answer(changes: BatchChange[]): BatchResponse {
  return { changed: changes.length, unchanged: 0, failed: 0, results: changes.map(changed) };
}

/** A run of `count` changes (petIds 1..count) that records what it sent and was told. */
function recorder(
  count: number,
  size: number,
  send: (changes: BatchChange[], request: number) => Promise<BatchResponse>,
  interruptedBy?: () => string | undefined,
) {
  const sent: number[][] = [];
  const results: string[] = [];
  const failures: [number, number, RowFailure][] = [];
  const notAttempted: [number, number, string][] = [];
  const options: BatchRunOptions = {
    count,
    size,
    changes: (start, end) =>
      Array.from({ length: end - start }, (_, i) => ({
        petId: BigInt(start + i + 1),
        quantity: 1,
      })),
    send: (changes) => {
      sent.push(changes.map((change) => Number(change.petId)));
      return send(changes, sent.length);
    },
    onResults: (start, batch, rejected) => {
      results.push(`${start}+${batch.length}${rejected ? " rejected" : ""}`);
    },
    onFailure: (start, end, failure) => failures.push([start, end, failure]),
    onNotAttempted: (start, end, reason) => notAttempted.push([start, end, reason]),
    interruptedBy,
  };
  return { options, sent, results, failures, notAttempted };
}

describe("sendInBatches", () => {
  it("sends the changes in order, in requests of up to `size`, one at a time", async () => {
    let inFlight = 0;
    const run = recorder(5, 2, async (changes) => {
      inFlight += 1;
      expect(inFlight).toBe(1);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      return answer(changes);
    });
    expect(await sendInBatches(run.options)).toEqual({ kind: "sent" });
    expect(run.sent).toEqual([[1, 2], [3, 4], [5]]);
    expect(run.results).toEqual(["0+2", "2+2", "4+1"]);
    expect(run.failures).toEqual([]);
  });

  it("sends nothing for no changes", async () => {
    const run = recorder(0, 1000, () => Promise.reject(new Error("no request expected")));
    expect(await sendInBatches(run.options)).toEqual({ kind: "sent" });
    expect(run.sent).toEqual([]);
  });

  it.each([404, 405])(
    "falls back when the first request answers %i: no batch route, nothing applied",
    async (status) => {
      const error = apiError(status, status === 404 ? "not_found" : "method_not_allowed");
      const run = recorder(5, 2, () => Promise.reject(error));
      expect(await sendInBatches(run.options)).toEqual({ kind: "no_batch_route", error });
      expect(run.sent).toEqual([[1, 2]]);
      expect(run.results).toEqual([]);
      expect(run.failures).toEqual([]);
    },
  );

  it("does not take a 404 of a later request for a missing route: its rows fail", async () => {
    const run = recorder(4, 2, (changes, request) =>
      request === 1 ? Promise.resolve(answer(changes)) : Promise.reject(apiError(404, "not_found")),
    );
    expect(await sendInBatches(run.options)).toEqual({ kind: "sent" });
    expect(run.failures).toEqual([[2, 4, expect.objectContaining({ status: 404 })]]);
  });

  it("throws any other failure of the first request as it is: nothing was applied", async () => {
    for (const error of [
      apiError(403, "forbidden"),
      apiError(503, "unavailable"),
      apiError(400, "invalid_body"),
    ]) {
      const run = recorder(5, 2, () => Promise.reject(error));
      await expect(sendInBatches(run.options)).rejects.toBe(error);
      expect(run.sent).toHaveLength(1);
    }
  });

  it("fails a later request's rows and goes on when the request itself was refused", async () => {
    const run = recorder(6, 2, (changes, request) =>
      request === 2
        ? Promise.reject(apiError(422, "idempotency_key_reused"))
        : Promise.resolve(answer(changes)),
    );
    expect(await sendInBatches(run.options)).toEqual({ kind: "sent" });
    expect(run.sent).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(run.results).toEqual(["0+2", "4+2"]);
    expect(run.failures).toEqual([
      [
        2,
        4,
        {
          reason: "422 idempotency_key_reused (idempotency_key_reused, HTTP 422)",
          code: "idempotency_key_reused",
          status: 422,
        },
      ],
    ]);
  });

  it("stops after a later request fails as a failing server's does: the rest not attempted", async () => {
    const down = new NetworkError({
      failure: "unreachable",
      message: "cannot reach http://x/v1/inventory/batch: connection refused (ECONNREFUSED)",
      method: "POST",
      url: "http://x/v1/inventory/batch",
      attempts: 3,
    });
    const run = recorder(7, 2, (changes, request) =>
      request === 2 ? Promise.reject(down) : Promise.resolve(answer(changes)),
    );
    // After 3 attempts nothing says the first did not reach the server.
    const stoppedBy = {
      reason:
        "cannot reach http://x/v1/inventory/batch: connection refused (ECONNREFUSED) (after 3 attempts); it may have been applied",
      unanswered: true,
    };
    expect(await sendInBatches(run.options)).toEqual({ kind: "sent", stoppedBy });
    expect(run.sent).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(run.failures).toEqual([[2, 4, stoppedBy]]);
    expect(run.notAttempted).toEqual([
      [4, 7, "not attempted: the server kept failing; run again later"],
    ]);
  });

  it("sends no request once interrupted: the one in flight finishes, the rest are not attempted", async () => {
    let signal: string | undefined;
    const run = recorder(
      5,
      2,
      (changes) => {
        signal = "SIGTERM"; // arrives while the first request is in flight
        return Promise.resolve(answer(changes));
      },
      () => signal,
    );
    expect(await sendInBatches(run.options)).toEqual({
      kind: "sent",
      interruptedBy: "SIGTERM",
      interruptedDuring: "sending",
    });
    expect(run.sent).toEqual([[1, 2]]);
    expect(run.results).toEqual(["0+2"]);
    expect(run.failures).toEqual([]);
    expect(run.notAttempted).toEqual([
      [2, 5, "not attempted: interrupted by SIGTERM; run again to apply it"],
    ]);
  });

  it("sends nothing when interrupted before the first request: every change not attempted", async () => {
    const run = recorder(
      5,
      2,
      (changes) => Promise.resolve(answer(changes)),
      () => "SIGINT",
    );
    expect(await sendInBatches(run.options)).toEqual({
      kind: "sent",
      interruptedBy: "SIGINT",
      interruptedDuring: "preparing",
    });
    expect(run.sent).toEqual([]);
    expect(run.failures).toEqual([]);
    expect(run.notAttempted).toEqual([
      [0, 5, "not attempted: interrupted by SIGINT; run again to apply it"],
    ]);
  });

  it("hands over the results of a rejected atomic batch, marked rejected", async () => {
    const run = recorder(3, 3, (changes) =>
      Promise.reject(new BatchRejectedError(apiError(409, "batch_rejected"), changes.map(changed))),
    );
    expect(await sendInBatches(run.options)).toEqual({ kind: "sent" });
    expect(run.results).toEqual(["0+3 rejected"]);
  });
});

describe("isMissingBatchRoute", () => {
  it("is true only for a 404 or 405 of the batch operation", () => {
    expect(isMissingBatchRoute(apiError(404, "not_found"))).toBe(true);
    expect(isMissingBatchRoute(apiError(405, "method_not_allowed"))).toBe(true);
    expect(isMissingBatchRoute(apiError(400, "invalid_body"))).toBe(false);
    expect(isMissingBatchRoute(apiError(404, "not_found", "listInventory" as never))).toBe(false);
    expect(isMissingBatchRoute(new Error("404"))).toBe(false);
  });
});
