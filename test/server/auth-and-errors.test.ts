import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/server/store/store.js";
import { expectError } from "./expect-error.js";
import { createHash } from "node:crypto";
import { API_KEY, AUTH, READ_AUTH, READ_KEY, createTestApp, type TestApp } from "./fixture.js";

const sha256 = (key: string) => createHash("sha256").update(key).digest("hex");

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(() => t.close());

describe("authentication", () => {
  const protectedRoutes = [
    ["GET", "/v1/inventory"],
    ["PATCH", "/v1/inventory/1"],
    ["GET", "/v1/pets/1"],
    ["GET", "/v1/store/orders"],
    ["GET", "/v1/openapi.json"],
    ["GET", "/v1/no-such-route"],
  ] as const;

  it.each(protectedRoutes)(
    "%s %s without a key is 401 with a Bearer challenge",
    async (method, url) => {
      const response = await t.app.inject({ method, url });
      expectError(response, 401, "unauthorized");
      expect(response.headers["www-authenticate"]).toBe('Bearer realm="petstore"');
    },
  );

  it.each([
    ["a wrong key", "Bearer wrong-key"],
    ["a key that is a prefix of a real one", `Bearer ${API_KEY.slice(0, -1)}`],
    ["another scheme", `Basic ${API_KEY}`],
    ["an empty bearer token", "Bearer "],
  ])("%s is 401 with error=invalid_token", async (_what, authorization) => {
    const response = await t.app.inject({ url: "/v1/inventory", headers: { authorization } });
    expectError(response, 401, "unauthorized");
    expect(response.headers["www-authenticate"]).toBe(
      'Bearer realm="petstore", error="invalid_token"',
    );
  });

  it("accepts every configured key and a lower-case scheme", async () => {
    for (const authorization of [`Bearer ${API_KEY}`, "Bearer second-key", `bearer ${API_KEY}`]) {
      const response = await t.app.inject({ url: "/v1/inventory", headers: { authorization } });
      expect(response.statusCode).toBe(200);
    }
  });

  it("never echoes the presented key", async () => {
    const response = await t.app.inject({
      url: "/v1/inventory",
      headers: { authorization: "Bearer s3cret-guess" },
    });
    expect(response.body).not.toContain("s3cret-guess");
  });

  it("serves /healthz without a key", async () => {
    const response = await t.app.inject({ url: "/healthz" });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: "ok" });
  });
});

describe("scopes", () => {
  const patch = (headers: Record<string, string>, body = '{"quantity":9}') =>
    t.app.inject({
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: { ...headers, "content-type": "application/json" },
      payload: body,
    });
  const quantityOfPet1 = async () =>
    (await t.app.inject({ url: "/v1/inventory/1", headers: AUTH })).json<{ quantity: number }>()
      .quantity;

  it.each([
    ["GET", "/v1/inventory"],
    ["GET", "/v1/inventory/1"],
    ["HEAD", "/v1/inventory"],
    ["GET", "/v1/pets/1"],
    ["GET", "/v1/store/orders"],
    ["GET", "/v1/openapi.json"],
  ] as const)("a read key may %s %s", async (method, url) => {
    expect((await t.app.inject({ method, url, headers: READ_AUTH })).statusCode).toBe(200);
  });

  it("a read key on PATCH is 403 forbidden, naming the key, and changes nothing", async () => {
    const response = await patch({ ...READ_AUTH, "if-match": '"3"', "idempotency-key": "k-1" });
    expectError(response, 403, "forbidden");
    expect(response.json()).toMatchObject({
      message: "the API key reader is read-only (scope read): it cannot PATCH; nothing was changed",
    });
    expect(response.headers["www-authenticate"]).toBeUndefined();
    expect(response.body).not.toContain(READ_KEY);
    expect(await quantityOfPet1()).toBe(3);
    // The write key's request with the same Idempotency-Key is a new one: nothing was kept.
    const write = await patch({ ...AUTH, "idempotency-key": "k-1" });
    expect(write.statusCode).toBe(200);
    expect(write.headers["idempotent-replayed"]).toBeUndefined();
    expect(await quantityOfPet1()).toBe(9);
  });

  it("a read key's write is 403 before its body is looked at", async () => {
    expectError(await patch(READ_AUTH, '{"quantity":-1}'), 403, "forbidden");
    expectError(await patch(READ_AUTH, "{not json"), 403, "forbidden");
    expect(await quantityOfPet1()).toBe(3);
  });

  it.each([
    ["POST", "/v1/inventory"],
    ["DELETE", "/v1/inventory/1"],
    ["PUT", "/v1/inventory/1"],
    ["OPTIONS", "/v1/inventory"],
    ["POST", "/v1/no-such-route"],
  ] as const)("a read key on %s %s is 403 forbidden", async (method, url) => {
    expectError(await t.app.inject({ method, url, headers: READ_AUTH }), 403, "forbidden");
  });

  it("a wrong key on a write is still 401, not 403", async () => {
    expectError(await patch({ authorization: "Bearer wrong-key" }), 401, "unauthorized");
  });
});

describe("errors the spec leaves open", () => {
  it.each([
    ["/v1/no-such-route", AUTH],
    ["/nowhere", {}],
    ["/v1", AUTH],
  ])("an unknown route %s is 404 not_found", async (url, headers) => {
    expectError(await t.app.inject({ url, headers }), 404, "not_found");
  });

  it("does not echo the query string of an unknown route", async () => {
    const response = await t.app.inject({ url: "/nowhere?token=abc", headers: AUTH });
    expect(response.body).not.toContain("abc");
  });

  it.each([
    ["DELETE", "/v1/inventory/1", "GET, PATCH, HEAD"],
    ["PUT", "/v1/inventory/1", "GET, PATCH, HEAD"],
    ["POST", "/v1/inventory/1", "GET, PATCH, HEAD"],
    ["POST", "/v1/inventory", "GET, HEAD"],
    ["DELETE", "/v1/pets/1", "GET, HEAD"],
    ["POST", "/v1/store/orders", "GET, HEAD"],
  ] as const)("%s %s is 405 with Allow: %s", async (method, url, allow) => {
    const response = await t.app.inject({ method, url, headers: AUTH });
    expectError(response, 405, "method_not_allowed");
    expect(response.headers.allow).toBe(allow);
  });

  it("answers 429 with the Error body and Retry-After when a rate limit is set", async () => {
    const limited = await createTestApp({ rateLimitPerMinute: 2 });
    await limited.app.inject({ url: "/v1/inventory", headers: AUTH });
    await limited.app.inject({ url: "/v1/inventory", headers: AUTH });
    const response = await limited.app.inject({ url: "/v1/inventory", headers: AUTH });
    expectError(response, 429, "too_many_requests");
    expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
    // Wrong keys count too, and load balancers' health checks never do.
    const guess = await limited.app.inject({
      url: "/v1/inventory",
      headers: { authorization: "Bearer guess" },
    });
    expectError(guess, 429, "too_many_requests");
    for (let i = 0; i < 5; i++) {
      expect((await limited.app.inject({ url: "/healthz" })).statusCode).toBe(200);
    }
    await limited.close();
  });

  it("answers 500 without leaking the failure, and logs it", async () => {
    const failing = {
      listInventory: () => Promise.reject(new Error("disk on fire at /var/lib/secret.db")),
      revision: () => Promise.resolve("x"),
      close: () => Promise.resolve(),
    } as unknown as Store;
    const broken = await createTestApp({ store: failing });
    const response = await broken.app.inject({ url: "/v1/inventory", headers: AUTH });
    expectError(response, 500, "internal_error");
    expect(response.body).not.toContain("disk on fire");
    expect(broken.logs.join("\n")).toContain("disk on fire");
    await broken.close();
  });
});

describe("logging", () => {
  it("logs one structured line per request and never a key or the Authorization header", async () => {
    await t.app.inject({ url: "/v1/inventory", headers: AUTH });
    await t.app.inject({ url: "/v1/inventory", headers: { authorization: "Bearer wrong-guess" } });
    const lines = t.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = lines.filter((line) => line.msg === "request");
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ method: "GET", route: "/v1/inventory", status: 200 });
    expect(requests[1]).toMatchObject({ status: 401 });
    for (const line of requests) {
      expect(typeof line.reqId).toBe("string");
      expect(typeof line.latencyMs).toBe("number");
    }
    const all = t.logs.join("\n");
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain("wrong-guess");
    expect(all.toLowerCase()).not.toContain("authorization");
  });

  it("names the key of each request, never the key or its digest", async () => {
    await t.app.inject({ url: "/v1/inventory", headers: AUTH });
    await t.app.inject({ method: "PATCH", url: "/v1/inventory/1", headers: READ_AUTH });
    await t.app.inject({ url: "/v1/inventory" });
    const requests = t.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === "request");
    expect(requests.map((line) => [line.status, line.keyName])).toEqual([
      [200, "tester"],
      [403, "reader"],
      [401, undefined],
    ]);
    const all = t.logs.join("\n").toLowerCase();
    for (const key of [API_KEY, READ_KEY]) {
      expect(all).not.toContain(key.toLowerCase());
      expect(all).not.toContain(sha256(key));
    }
  });

  it("returns the request id in x-request-id", async () => {
    const response = await t.app.inject({ url: "/healthz" });
    expect(response.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
