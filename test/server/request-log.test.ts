/**
 * A request's log line as an operator searches it: ISO time, the request id (the caller's
 * X-Request-Id when well formed, echoed back and kept in history), route template and pet id,
 * the client's address, the Error body's code of any 4xx or 5xx, never a key.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isWellFormedRequestId } from "../../src/server/request-id.js";
import { API_KEY, AUTH, createTestApp, type TestApp } from "./fixture.js";

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

function requestLines(): Record<string, unknown>[] {
  return t.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === "request");
}

describe("request ids", () => {
  it("honours a well-formed X-Request-Id: echoed, logged, and kept in the history record", async () => {
    const response = await t.app.inject({
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: { ...AUTH, "x-request-id": "till-3:sale/2026-11-25.0042" },
      payload: { quantity: 11 },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers["x-request-id"]).toBe("till-3:sale/2026-11-25.0042");
    expect(requestLines()[0]?.reqId).toBe("till-3:sale/2026-11-25.0042");
    const history = await t.app.inject({ url: "/v1/inventory/1/history?limit=1", headers: AUTH });
    expect(history.json<{ requestId: string }[]>()[0]?.requestId).toBe(
      "till-3:sale/2026-11-25.0042",
    );
  });

  it.each([
    ["empty", ""],
    ["too long", "a".repeat(129)],
    ["with a space", "two words"],
    ["with a quote", 'x"y'],
    ["with a newline escape", "a\\nb"],
  ])("replaces a malformed X-Request-Id (%s) with its own UUID", async (_why, incoming) => {
    const response = await t.app.inject({ url: "/livez", headers: { "x-request-id": incoming } });
    expect(response.statusCode).toBe(200);
    expect(response.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestLines()[0]?.reqId).toBe(response.headers["x-request-id"]);
  });

  it("accepts ids of 1 to 128 characters of letters, digits and ._~:/+=@-", () => {
    expect(isWellFormedRequestId("a")).toBe(true);
    expect(isWellFormedRequestId("Z".repeat(128))).toBe(true);
    expect(isWellFormedRequestId("9c4b2e71-6d3a-4f05-8e19-7a2c5b0d3f84")).toBe(true);
    expect(isWellFormedRequestId("trace=abc+def@edge/1~2.3_4")).toBe(true);
    expect(isWellFormedRequestId("é")).toBe(false);
    expect(isWellFormedRequestId("a,b")).toBe(false);
  });
});

describe("the request log line", () => {
  it("has an ISO time, the route template, the pet id, the client address and the key's name", async () => {
    await t.app.inject({ url: "/v1/inventory/2", headers: AUTH, remoteAddress: "192.0.2.7" });
    const [line] = requestLines();
    expect(line).toMatchObject({
      method: "GET",
      route: "/v1/inventory/:petId",
      petId: "2",
      status: 200,
      client: "192.0.2.7",
      keyName: "tester",
    });
    expect(line?.code).toBeUndefined();
    expect(line?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("carries the Error body's code of every 4xx and 5xx, thrown or rendered", async () => {
    const patch = (petId: string, body: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: "PATCH",
        url: `/v1/inventory/${petId}`,
        headers: { ...AUTH, ...headers },
        payload: body as object,
      });
    await patch("1", { quantity: -1 });
    await patch("x", { quantity: 1 });
    await patch("404", { quantity: 1 });
    await patch("1", { quantity: 1 }, { "if-match": '"999"' });
    await patch("1", { quantity: 1 }, { "idempotency-key": "k" });
    await patch("1", { quantity: 2 }, { "idempotency-key": "k" });
    await t.app.inject({ url: "/v1/inventory" });
    await t.app.inject({
      method: "POST",
      url: "/v1/inventory/batch",
      headers: AUTH,
      payload: { atomic: true, changes: [{ petId: 404, delta: 1 }] },
    });
    expect(requestLines().map((line) => [line.status, line.code])).toEqual([
      [400, "invalid_body"],
      [400, "invalid_pet_id"],
      [404, "pet_not_found"],
      [412, "precondition_failed"],
      [200, undefined],
      [422, "idempotency_key_reused"],
      [401, "unauthorized"],
      [409, "batch_rejected"],
    ]);
    expect(t.logs.join("\n")).not.toContain(API_KEY);
  });

  it("names the code of a replayed error answer too", async () => {
    const headers = { ...AUTH, "idempotency-key": "replay-404" };
    for (let i = 0; i < 2; i++) {
      await t.app.inject({
        method: "PATCH",
        url: "/v1/inventory/404",
        headers,
        payload: { quantity: 1 },
      });
    }
    expect(requestLines().map((line) => [line.status, line.code])).toEqual([
      [404, "pet_not_found"],
      [404, "pet_not_found"],
    ]);
  });
});

describe("the client address behind a reverse proxy (--trust-proxy)", () => {
  const forwarded = { "x-forwarded-for": "203.0.113.9" };

  async function clientOf(
    trustProxy: readonly string[] | undefined,
    remoteAddress: string,
    headers: Record<string, string> = forwarded,
  ): Promise<unknown> {
    const app = await createTestApp(trustProxy ? { trustProxy } : {});
    try {
      await app.app.inject({ url: "/livez", headers, remoteAddress });
      const line = app.logs.map((text) => JSON.parse(text) as Record<string, unknown>)[0];
      return line?.client;
    } finally {
      await app.close();
    }
  }

  it("is the forwarded client when the connection comes from a trusted proxy", async () => {
    expect(await clientOf(["127.0.0.1"], "127.0.0.1")).toBe("203.0.113.9");
    expect(await clientOf(["10.0.0.0/8", "::1"], "10.1.2.3")).toBe("203.0.113.9");
    expect(await clientOf(["10.0.0.0/8", "::1"], "::1")).toBe("203.0.113.9");
  });

  it("is the last address no trusted proxy added, when proxies are chained", async () => {
    const headers = { "x-forwarded-for": "198.51.100.4, 203.0.113.9, 10.0.0.2" };
    expect(await clientOf(["10.0.0.0/8"], "10.0.0.1", headers)).toBe("203.0.113.9");
  });

  it("is the connection's own address without the flag, or from an address not trusted", async () => {
    expect(await clientOf(undefined, "127.0.0.1")).toBe("127.0.0.1");
    expect(await clientOf(["10.0.0.0/8"], "192.0.2.7")).toBe("192.0.2.7");
  });
});

describe("--rate-limit behind a trusted proxy", () => {
  it("counts each forwarded client apart, not the proxy as one client", async () => {
    const app = await createTestApp({ trustProxy: ["127.0.0.1"], rateLimitPerMinute: 1 });
    try {
      const from = (client: string) =>
        app.app.inject({
          url: "/v1/inventory",
          headers: { ...AUTH, "x-forwarded-for": client },
          remoteAddress: "127.0.0.1",
        });
      expect((await from("203.0.113.9")).statusCode).toBe(200);
      expect((await from("203.0.113.10")).statusCode).toBe(200);
      expect((await from("203.0.113.9")).statusCode).toBe(429);
    } finally {
      await app.close();
    }
  });
});
