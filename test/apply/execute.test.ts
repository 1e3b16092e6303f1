import { describe, expect, it } from "vitest";
import { executePlan } from "../../src/apply/execute.js";
import type { ApplyPlan } from "../../src/apply/plan.js";
import { ApiError, NetworkError } from "../../src/client/errors.js";

function planOf(count: number, unchangedEvery = 0): ApplyPlan {
  const rows = Array.from({ length: count }, (_, i) => {
    const change = unchangedEvery === 0 || (i + 1) % unchangedEvery !== 0;
    return { petId: BigInt(i + 1), previous: 0, desired: change ? 1 : 0, change };
  });
  return { rows, changes: rows.filter((row) => row.change).length };
}

const notFound = new ApiError({
  status: 404,
  code: "pet_not_found",
  operation: "updateInventory",
  message: "no pet with petId 2",
  method: "PATCH",
  url: "http://x/v1/inventory/2",
  attempts: 1,
});

function unreachable(): NetworkError {
  return new NetworkError({
    failure: "unreachable",
    message: "cannot reach http://x/v1/inventory/1: connection refused (ECONNREFUSED)",
    method: "PATCH",
    url: "http://x/v1/inventory/1",
    attempts: 3,
  });
}

describe("executePlan", () => {
  it("PATCHes only the changes and reports every row in file order", async () => {
    const sent: bigint[] = [];
    const report = await executePlan(planOf(4, 2), {
      concurrency: 2,
      update: (petId) => {
        sent.push(petId);
        return Promise.resolve();
      },
    });
    expect(sent.sort()).toEqual([1n, 3n]);
    expect(report).toEqual({
      changed: 2,
      unchanged: 2,
      failed: 0,
      notAttempted: 0,
      results: [
        { petId: 1n, previous: 0, desired: 1, outcome: "changed" },
        { petId: 2n, previous: 0, desired: 0, outcome: "unchanged" },
        { petId: 3n, previous: 0, desired: 1, outcome: "changed" },
        { petId: 4n, previous: 0, desired: 0, outcome: "unchanged" },
      ],
    });
  });

  it("passes the quantity it read, and makes a 412 a conflict counted as failed", async () => {
    const seen: [bigint, number, number | undefined][] = [];
    const preconditionFailed = new ApiError({
      status: 412,
      code: "precondition_failed",
      operation: "updateInventory",
      message: "the entry does not match If-Match",
      method: "PATCH",
      url: "http://x/v1/inventory/1",
      attempts: 1,
      etag: '"5"',
    });
    const report = await executePlan(planOf(2), {
      concurrency: 1,
      update: (petId, quantity, previous) => {
        seen.push([petId, quantity, previous]);
        return petId === 1n ? Promise.reject(preconditionFailed) : Promise.resolve();
      },
    });
    expect(seen).toEqual([
      [1n, 1, 0],
      [2n, 1, 0],
    ]);
    expect(report).toEqual({
      changed: 1,
      unchanged: 0,
      failed: 1,
      notAttempted: 0,
      results: [
        {
          petId: 1n,
          previous: 0,
          desired: 1,
          outcome: "conflict",
          current: 5,
          failure: {
            reason: "changed to 5 since it was read; not overwritten",
            code: "precondition_failed",
            status: 412,
          },
        },
        { petId: 2n, previous: 0, desired: 1, outcome: "changed" },
      ],
    });
  });

  it("never has more than `concurrency` updates in flight", async () => {
    let inFlight = 0;
    let most = 0;
    await executePlan(planOf(50), {
      concurrency: 3,
      update: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 1));
        inFlight -= 1;
      },
    });
    expect(most).toBe(3);
  });

  it("fails a rejected row alone, with its reason, and goes on", async () => {
    const settled: string[] = [];
    const report = await executePlan(planOf(3), {
      concurrency: 1,
      update: (petId) => (petId === 2n ? Promise.reject(notFound) : Promise.resolve()),
      onSettled: (result) => settled.push(`${result.petId}:${result.outcome}`),
    });
    expect(report).toMatchObject({ changed: 2, unchanged: 0, failed: 1 });
    expect(report.results[1]).toEqual({
      petId: 2n,
      previous: 0,
      desired: 1,
      outcome: "failed",
      failure: { reason: "no such pet", code: "pet_not_found", status: 404 },
    });
    expect(settled).toEqual(["1:changed", "2:failed", "3:changed"]);
  });

  it("reports an unexpected error as that row's failure, not a crash", async () => {
    const report = await executePlan(planOf(2), {
      concurrency: 1,
      update: (petId) => (petId === 1n ? Promise.reject(new TypeError("oops")) : Promise.resolve()),
    });
    expect(report.results[0]?.failure?.reason).toBe(
      "unexpected failure: oops (a bug in petstore, please report it)",
    );
    expect(report.results[1]?.outcome).toBe("changed");
  });

  it("stops starting PATCHes after N server-wide failures in a row, marking the rest not attempted", async () => {
    let calls = 0;
    const report = await executePlan(planOf(20), {
      concurrency: 1,
      stopAfterServerFailures: 3,
      update: (petId) => {
        calls += 1;
        return petId === 1n ? Promise.resolve() : Promise.reject(unreachable());
      },
    });
    expect(calls).toBe(4);
    // After 3 attempts nothing says the first did not reach the server.
    const failure = {
      reason:
        "cannot reach http://x/v1/inventory/1: connection refused (ECONNREFUSED) (after 3 attempts); it may have been applied",
      unanswered: true,
    };
    expect(report).toMatchObject({
      changed: 1,
      failed: 3,
      notAttempted: 16,
      stoppedAfter: 3,
      stoppedBy: failure,
    });
    expect(report.results[1]?.failure).toEqual(failure);
    expect(report.results[4]).toMatchObject({
      outcome: "not_attempted",
      failure: {
        reason:
          "not attempted: the server kept failing (3 changes in a row failed); run again later",
      },
    });
  });

  it("does not count row-level rejections towards stopping", async () => {
    const report = await executePlan(planOf(10), {
      concurrency: 1,
      stopAfterServerFailures: 2,
      update: (petId) => Promise.reject(petId % 2n === 0n ? notFound : unreachable()),
    });
    expect(report.stoppedAfter).toBeUndefined();
    expect(report.results.every((row) => row.outcome !== "not_attempted")).toBe(true);
  });

  it("starts no PATCH once interrupted: the rows after are not attempted, apart from failures", async () => {
    let signal: string | undefined;
    const report = await executePlan(planOf(4), {
      concurrency: 1,
      update: () => {
        signal = "SIGINT"; // arrives while the first PATCH is in flight
        return Promise.resolve();
      },
      interruptedBy: () => signal,
    });
    expect(report).toMatchObject({
      changed: 1,
      failed: 0,
      notAttempted: 3,
      interruptedBy: "SIGINT",
      interruptedDuring: "sending",
    });
    expect(report.results[1]).toMatchObject({
      outcome: "not_attempted",
      failure: { reason: "not attempted: interrupted by SIGINT; run again to apply it" },
    });
  });

  it("says an interrupt came before any PATCH started", async () => {
    const report = await executePlan(planOf(2), {
      concurrency: 1,
      update: () => Promise.reject(new Error("sent")),
      interruptedBy: () => "SIGTERM",
    });
    expect(report).toMatchObject({
      changed: 0,
      failed: 0,
      notAttempted: 2,
      interruptedDuring: "preparing",
    });
  });
});
