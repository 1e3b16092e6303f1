/**
 * `applyBatch`: the request as it goes (one Idempotency-Key per batch, kept by its retries;
 * int64 ids exact), the answer checked against what was sent, a rejected atomic batch with its
 * results, a server without the batch route told apart, counts and their results, the
 * answer's Inventory-Seq, and a server without count changes told apart.
 */
import { MockAgent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { MOCK_ORIGIN, mockClient } from "./mock-client.js";
import type { BatchRequest } from "../../src/api/types.js";
import {
  BatchRejectedError,
  CountChangesRefusedError,
  isCountsRefusal,
  isMissingBatchRoute,
} from "../../src/client/batch-errors.js";
import { ApiError, MalformedResponseError } from "../../src/client/errors.js";
import { MAX_ID } from "../support/ids.js";

const ORIGIN = MOCK_ORIGIN;
const json = { headers: { "content-type": "application/json" } };
const route = { path: "/v1/inventory/batch", method: "POST" } as const;

let agent: MockAgent;

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

function client() {
  agent = new MockAgent({ enableCallHistory: true });
  let keys = 0;
  return mockClient(agent, { retries: 2, idempotencyKey: () => `key-${++keys}` });
}

const REQUEST: BatchRequest = {
  atomic: false,
  dryRun: false,
  changes: [
    { petId: MAX_ID, quantity: 5, ifQuantity: 3 },
    { petId: 2n, delta: -1, ref: "sale-1" },
  ],
};

const RESULTS = `[{"petId":${MAX_ID},"outcome":"changed","previous":3,"quantity":5,"status":"sold"},{"petId":2,"outcome":"not_found","previous":null,"quantity":null,"status":null}]`;

function calls() {
  return (agent.getCallHistory()?.calls() ?? []).map((call) => ({
    body: String(call.body),
    headers: call.headers as Record<string, string>,
  }));
}

describe("applyBatch", () => {
  it("posts the batch with int64 ids exact, a key and the reason, and decodes the results", async () => {
    const api = client();
    agent
      .get(ORIGIN)
      .intercept(route)
      .reply(200, `{"changed":1,"unchanged":0,"failed":1,"results":${RESULTS}}`, json);
    await expect(api.applyBatch(REQUEST, { reason: "stocktake" })).resolves.toEqual({
      changed: 1,
      unchanged: 0,
      failed: 1,
      results: [
        { petId: MAX_ID, outcome: "changed", previous: 3, quantity: 5, status: "sold" },
        { petId: 2n, outcome: "not_found", previous: null, quantity: null, status: null },
      ],
    });
    const [call] = calls();
    expect(call?.body).toBe(
      `{"atomic":false,"dryRun":false,"changes":[{"petId":${MAX_ID},"quantity":5,"ifQuantity":3},{"petId":2,"delta":-1,"ref":"sale-1"}]}`,
    );
    expect(call?.headers).toMatchObject({
      "idempotency-key": "key-1",
      "x-change-reason": "stocktake",
      "content-type": "application/json",
    });
  });

  it("retries a 503 with the same key: one batch, one intended change", async () => {
    const api = client();
    const pool = agent.get(ORIGIN);
    pool.intercept(route).reply(503, '{"code":"unavailable","message":"busy","status":503}', {
      headers: { ...json.headers, "retry-after": "1" },
    });
    pool
      .intercept(route)
      .reply(200, `{"changed":1,"unchanged":0,"failed":1,"results":${RESULTS}}`, json);
    await api.applyBatch(REQUEST);
    expect(calls().map((call) => call.headers["idempotency-key"])).toEqual(["key-1", "key-1"]);
    expect(calls()[0]?.headers["x-change-reason"]).toBeUndefined();
    // The next batch is another change: another key.
    pool
      .intercept(route)
      .reply(200, `{"changed":1,"unchanged":0,"failed":1,"results":${RESULTS}}`, json);
    await api.applyBatch(REQUEST);
    expect(calls()[2]?.headers["idempotency-key"]).toBe("key-2");
  });

  it("gives a rejected atomic batch (409) as a BatchRejectedError carrying every result", async () => {
    const api = client();
    agent
      .get(ORIGIN)
      .intercept(route)
      .reply(
        409,
        `{"code":"batch_rejected","message":"1 change failed; nothing was applied","status":409,"results":${RESULTS}}`,
        json,
      );
    const error = await api.applyBatch({ ...REQUEST, atomic: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchRejectedError);
    expect(error).toMatchObject({
      status: 409,
      code: "batch_rejected",
      message: "1 change failed; nothing was applied",
      operation: "applyInventoryBatch",
    });
    expect((error as BatchRejectedError).results.map((result) => result.outcome)).toEqual([
      "changed",
      "not_found",
    ]);
  });

  it.each([
    [404, '{"code":"not_found","message":"Route POST:/v1/inventory/batch not found","status":404}'],
    [405, '{"code":"method_not_allowed","message":"POST is not allowed","status":405}'],
    [404, "<html>Not Found</html>"],
  ])("tells a %i (no batch route) apart", async (status, body) => {
    const api = client();
    agent.get(ORIGIN).intercept(route).reply(status, body);
    const error = await api.applyBatch(REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(isMissingBatchRoute(error)).toBe(true);
    expect((error as ApiError).isNoSuchPet()).toBe(false);
  });

  it.each([
    [
      '{"changed":1,"unchanged":0,"failed":0,"results":[]}',
      ".results is not one result for each of the 2 changes sent",
    ],
    [
      `{"changed":1,"unchanged":0,"failed":1,"results":${RESULTS.replace(String(MAX_ID), "3")}}`,
      ".results[0].petId is not the petId of changes[0]",
    ],
    [
      `{"changed":1,"unchanged":0,"failed":1,"results":${RESULTS.replace('"not_found"', '"lost"')}}`,
      ".results[1].outcome is not one of changed, unchanged, duplicate",
    ],
    ['{"changed":-1,"unchanged":0,"failed":0,"results":[]}', ".changed is not a count"],
  ])("refuses an answer that does not match what was sent: %s", async (body, message) => {
    const api = client();
    agent.get(ORIGIN).intercept(route).reply(200, body, json);
    const error = await api.applyBatch(REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toContain(message);
  });

  it("refuses a 409 batch_rejected whose results do not match the changes", async () => {
    const api = client();
    agent
      .get(ORIGIN)
      .intercept(route)
      .reply(409, '{"code":"batch_rejected","message":"no","status":409,"results":[]}', json);
    const error = await api.applyBatch(REQUEST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect((error as Error).message).toBe(
      "unexpected response from POST http://petstore.test/v1/inventory/batch (409): .results is not one result for each of the 2 changes sent",
    );
  });
});

describe("applyBatch of counts, and the seq of an answer", () => {
  const COUNTS: BatchRequest = {
    atomic: true,
    dryRun: false,
    changes: [
      { petId: MAX_ID, count: 5, asOf: 9007199254740993n, ref: "count:s:1" },
      { petId: 2n, count: 0, asOf: 12n },
    ],
  };
  const COUNT_RESULTS = `[{"petId":${MAX_ID},"outcome":"changed","previous":7,"quantity":4,"status":"sold","book":6,"since":-1,"counted":5,"variance":-1},{"petId":2,"outcome":"not_found","previous":null,"quantity":null,"status":null,"book":null,"since":null,"counted":0,"variance":null}]`;
  const withSeq = (seq: string) => ({
    headers: { ...json.headers, "inventory-seq": seq },
  });

  it("sends each count with its asOf exact and reads its result and the answer's Inventory-Seq", async () => {
    const api = client();
    agent
      .get(ORIGIN)
      .intercept(route)
      .reply(
        200,
        `{"changed":1,"unchanged":0,"failed":1,"results":${COUNT_RESULTS}}`,
        withSeq("9007199254740995"),
      );
    await expect(api.applyBatch(COUNTS)).resolves.toEqual({
      changed: 1,
      unchanged: 0,
      failed: 1,
      results: [
        {
          petId: MAX_ID,
          outcome: "changed",
          previous: 7,
          quantity: 4,
          status: "sold",
          book: 6,
          since: -1,
          counted: 5,
          variance: -1,
        },
        {
          petId: 2n,
          outcome: "not_found",
          previous: null,
          quantity: null,
          status: null,
          book: null,
          since: null,
          counted: 0,
          variance: null,
        },
      ],
      seq: 9007199254740995n,
    });
    expect(calls()[0]?.body).toBe(
      `{"atomic":true,"dryRun":false,"changes":[{"petId":${MAX_ID},"count":5,"asOf":9007199254740993,"ref":"count:s:1"},{"petId":2,"count":0,"asOf":12}]}`,
    );
  });

  it.each([
    ["absent (an older server)", undefined],
    ["not a seq", "soon"],
    ["with a leading zero", "012"],
    ["negative", "-1"],
    ["beyond int64's digits", "1".repeat(20)],
  ])("gives no seq when Inventory-Seq is %s: never a guess", async (_name, header) => {
    const api = client();
    agent
      .get(ORIGIN)
      .intercept(route)
      .reply(
        200,
        `{"changed":1,"unchanged":0,"failed":1,"results":${RESULTS}}`,
        header === undefined ? json : withSeq(header),
      );
    const answer = await api.applyBatch(REQUEST);
    expect(answer.seq).toBeUndefined();
  });

  it("gives a rejected atomic batch of counts its results and the seq they reflect", async () => {
    const api = client();
    agent
      .get(ORIGIN)
      .intercept(route)
      .reply(
        409,
        `{"code":"batch_rejected","message":"1 of 2 changes failed","status":409,"results":${COUNT_RESULTS}}`,
        withSeq("41"),
      );
    const error = await api.applyBatch(COUNTS).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchRejectedError);
    expect(error).toMatchObject({ seq: 41n, results: [{ book: 6, since: -1 }, { book: null }] });
  });

  it("tells a server without count changes (400: count is no field of a change) apart", async () => {
    const api = client();
    agent
      .get(ORIGIN)
      .intercept(route)
      .reply(
        400,
        '{"code":"invalid_body","message":"changes[0].count is not a field of a change (petId, quantity or delta, ifQuantity, ref); nothing was changed","status":400}',
        json,
      );
    const error = await api.applyBatch(COUNTS).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CountChangesRefusedError);
    expect(isCountsRefusal(error)).toBe(true);
    expect(error).toMatchObject({
      status: 400,
      code: "invalid_body",
      operation: "applyInventoryBatch",
    });
  });

  it.each([
    [
      "a count this server takes but refuses (asOf after its latest)",
      COUNTS,
      "changes[1].asOf 12 is after the latest change (seq 10): a count is as of a seq a read of the inventory gave (Inventory-Seq); nothing was changed",
    ],
    [
      "a batch without counts",
      REQUEST,
      "changes[0].count is not a field of a change (petId, quantity or delta, ifQuantity, ref); nothing was changed",
    ],
  ])("keeps a plain 400 for %s", async (_name, request, message) => {
    const api = client();
    agent
      .get(ORIGIN)
      .intercept(route)
      .reply(400, JSON.stringify({ code: "invalid_body", message, status: 400 }), json);
    const error = await api.applyBatch(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(isCountsRefusal(error)).toBe(false);
  });
});
