import { MockAgent } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { decodeInventoryItem, ShapeError } from "../../src/client/decode.js";
import { undiciExchange } from "../../src/client/dispatcher.js";
import { createTransport, type TransportOptions } from "../../src/client/transport.js";
import { ApiError, MalformedResponseError, NetworkError } from "../../src/client/errors.js";

const ORIGIN = "http://petstore.test";
const target = {
  env: "production" as const,
  baseUrl: `${ORIGIN}/v1`,
  baseUrlSource: "--base-url",
  apiKey: "k-9f3e71",
  apiKeySource: "PETSTORE_API_KEY",
};
const json = { "content-type": "application/json" };
const ITEM = '{"petId":42,"quantity":7,"status":"available"}';

let agent: MockAgent;

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

function transport(more: Partial<TransportOptions> = {}) {
  agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  return createTransport({
    target,
    exchange: undiciExchange(agent),
    timeoutMs: 1000,
    retry: { retries: 2, sleep: () => Promise.resolve(), random: () => 0.5 },
    now: () => 0,
    userAgent: "petstore-test",
    ...more,
  });
}

/** A conditional write as the next features will send it, reading the new ETag back. */
const conditionalWrite = {
  operation: "updateInventory" as const,
  method: "PATCH" as const,
  path: "/inventory/42",
  body: { quantity: 7 },
  headers: {
    "If-Match": '"6"',
    "Idempotency-Key": "2f1c7a3e-0d4b-4f0e-9a51-3b3f0f6b9c11",
    "X-Change-Reason": "shelf count",
  },
  decode: (
    body: unknown,
    response: { status: number; headers: Readonly<Record<string, string>> },
  ) => ({
    item: decodeInventoryItem(body),
    etag: response.headers.etag,
    status: response.status,
  }),
};

describe("transport", () => {
  it("sends a call's own headers and lets its decoder read the response headers", async () => {
    const { send } = transport();
    agent
      .get(ORIGIN)
      .intercept({
        path: "/v1/inventory/42",
        method: "PATCH",
        headers: {
          "if-match": '"6"',
          "idempotency-key": "2f1c7a3e-0d4b-4f0e-9a51-3b3f0f6b9c11",
          "x-change-reason": "shelf count",
          authorization: "Bearer k-9f3e71",
          "content-type": "application/json",
        },
        body: '{"quantity":7}',
      })
      .reply(200, ITEM, { headers: { ...json, ETag: '"7"' } });
    await expect(send(conditionalWrite)).resolves.toEqual({
      item: { petId: 42n, quantity: 7, status: "available" },
      etag: '"7"',
      status: 200,
    });
  });

  it("sends the same headers again on a retry (one Idempotency-Key per change)", async () => {
    const { send } = transport();
    const pool = agent.get(ORIGIN);
    const expected = {
      path: "/v1/inventory/42",
      method: "PATCH",
      headers: { "idempotency-key": "2f1c7a3e-0d4b-4f0e-9a51-3b3f0f6b9c11" },
    };
    pool.intercept(expected).reply(503, "");
    pool.intercept(expected).reply(200, ITEM, { headers: { ...json, etag: '"7"' } });
    await expect(send(conditionalWrite)).resolves.toMatchObject({ etag: '"7"' });
  });

  it("refuses a call that would replace the client's own headers", async () => {
    const { send } = transport();
    await expect(
      send({ ...conditionalWrite, headers: { Authorization: "Bearer other" } }),
    ).rejects.toThrow("updateInventory: the authorization header is set by the client");
    expect(agent.getCallHistory()?.calls()).toEqual([]);
  });

  it("raises errors that name the operation and carry the target without the key", async () => {
    const { send } = transport();
    agent
      .get(ORIGIN)
      .intercept({ path: "/v1/inventory/42", method: "PATCH" })
      .reply(404, '{"code":"pet_not_found","message":"no pet with petId 42","status":404}', {
        headers: json,
      });
    const error = await send(conditionalWrite).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      operation: "updateInventory",
      status: 404,
      code: "pet_not_found",
      target: {
        env: "production",
        baseUrl: `${ORIGIN}/v1`,
        baseUrlSource: "--base-url",
        apiKeySource: "PETSTORE_API_KEY",
      },
    });
    expect(JSON.stringify(error)).not.toContain("k-9f3e71");
    expect((error as ApiError).isNoSuchPet()).toBe(true);
  });

  it("keeps the Location of a redirect and does not follow it", async () => {
    const { send } = transport();
    agent
      .get(ORIGIN)
      .intercept({ path: "/v1/inventory/42", method: "PATCH" })
      .reply(301, "", { headers: { location: "https://petstore.test/v1/inventory/42" } });
    const error = await send(conditionalWrite).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      status: 301,
      location: "https://petstore.test/v1/inventory/42",
      message:
        "the server answered 301 Moved Permanently, redirecting to https://petstore.test/v1/inventory/42",
    });
  });

  it("reports a 2xx body its decoder refuses as a malformed response, with the target", async () => {
    const { send } = transport();
    agent
      .get(ORIGIN)
      .intercept({ path: "/v1/inventory/42", method: "PATCH" })
      .reply(200, '{"petId":42}', { headers: json });
    const error = await send(conditionalWrite).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error).toMatchObject({ target: { baseUrl: `${ORIGIN}/v1` } });
  });

  it("lets a decoder refuse a response for a header it lacks", async () => {
    const { send } = transport();
    agent
      .get(ORIGIN)
      .intercept({ path: "/v1/inventory/42", method: "PATCH" })
      .reply(200, ITEM, { headers: json });
    const needsEtag = {
      ...conditionalWrite,
      decode: (_body: unknown, response: { headers: Readonly<Record<string, string>> }) => {
        if (response.headers.etag === undefined) throw new ShapeError("ETag", "present");
        return response.headers.etag;
      },
    };
    await expect(send(needsEtag)).rejects.toThrow(
      `unexpected response from PATCH ${ORIGIN}/v1/inventory/42: ETag is not present`,
    );
  });

  it("names the proxy in a network error when one is in use", async () => {
    const { send } = transport({
      proxy: { address: "127.0.0.1:3128", source: "HTTP_PROXY" },
      retry: { retries: 0, sleep: () => Promise.resolve(), random: () => 0.5 },
    });
    agent
      .get(ORIGIN)
      .intercept({ path: "/v1/inventory/42", method: "PATCH" })
      .replyWithError(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    const error = await send(conditionalWrite).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({
      message: `cannot reach ${ORIGIN}/v1/inventory/42 via proxy 127.0.0.1:3128: connection refused (ECONNREFUSED)`,
      proxy: { address: "127.0.0.1:3128", source: "HTTP_PROXY" },
      code: "ECONNREFUSED",
    });
  });
});
