/** GET /v1/inventory/{petId}, ETag, If-Match and Idempotency-Key, through app.inject(). */
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import type { LightMyRequestResponse } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "./expect-error.js";
import {
  API_KEY,
  AUTH,
  MAX_ID,
  createLockedTestApp,
  createTestApp,
  type TestApp,
} from "./fixture.js";

let t: TestApp;
let now: number;
beforeEach(async () => {
  now = Date.UTC(2026, 0, 1);
  t = await createTestApp({ clock: () => now });
});
afterEach(() => t.close());

const patch = (
  petId: string | number,
  quantity: number,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> =>
  t.app.inject({
    method: "PATCH",
    url: `/v1/inventory/${petId}`,
    headers: { ...AUTH, ...headers },
    payload: { quantity },
  });

const quantityOf = async (petId: number) =>
  (await t.app.inject({ url: `/v1/inventory/${petId}`, headers: AUTH })).json<{
    quantity: number;
  }>().quantity;

describe("GET /v1/inventory/{petId}", () => {
  it("200: one entry, int64 exact, with its quantity as ETag", async () => {
    const response = await t.app.inject({ url: `/v1/inventory/${MAX_ID}`, headers: AUTH });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.headers.etag).toBe('"5"');
    expect(response.body).toBe(`{"petId":${MAX_ID},"quantity":5,"status":"pending"}`);
  });

  it("HEAD: the same headers without a body", async () => {
    const response = await t.app.inject({ method: "HEAD", url: "/v1/inventory/1", headers: AUTH });
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('"3"');
    expect(response.body).toBe("");
  });

  it("404: pet_not_found, no ETag", async () => {
    const response = await t.app.inject({ url: "/v1/inventory/404", headers: AUTH });
    expectError(response, 404, "pet_not_found");
    expect(response.headers.etag).toBeUndefined();
  });

  it.each(["abc", "0", "-1", "9223372036854775808", "1.5"])(
    "400: invalid_pet_id for %s",
    async (petId) => {
      expectError(
        await t.app.inject({ url: `/v1/inventory/${petId}`, headers: AUTH }),
        400,
        "invalid_pet_id",
      );
    },
  );

  it("401: no key, or a wrong one, with WWW-Authenticate", async () => {
    const none = await t.app.inject({ url: "/v1/inventory/1" });
    expectError(none, 401, "unauthorized");
    expect(none.headers["www-authenticate"]).toBe('Bearer realm="petstore"');
    const wrong = await t.app.inject({
      url: "/v1/inventory/1",
      headers: { authorization: "Bearer nope" },
    });
    expectError(wrong, 401, "unauthorized");
    expect(wrong.headers["www-authenticate"]).toBe(
      'Bearer realm="petstore", error="invalid_token"',
    );
  });

  it("405 for other methods, with Allow", async () => {
    const response = await t.app.inject({ method: "POST", url: "/v1/inventory/1", headers: AUTH });
    expectError(response, 405, "method_not_allowed");
    expect(response.headers.allow).toBe("GET, PATCH, HEAD");
  });
});

describe("PATCH /v1/inventory/{petId}: ETag and If-Match", () => {
  it("200 answers the new ETag", async () => {
    const response = await patch(1, 8);
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('"8"');
    expect(response.headers["idempotent-replayed"]).toBeUndefined();
  });

  it.each([['"3"'], ['"9", "3"'], ["*"], ['W/"3", "3"']])(
    "writes with If-Match %s that matches",
    async (ifMatch) => {
      const response = await patch(1, 4, { "if-match": ifMatch });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ petId: 1, quantity: 4, status: "available" });
      expect(response.headers.etag).toBe('"4"');
    },
  );

  it.each([['"4"'], ['W/"3"'], ['"03"'], ['"4", "5"'], ['"abc"'], ['""']])(
    "412 with If-Match %s, the current ETag, nothing changed",
    async (ifMatch) => {
      const response = await patch(1, 9, { "if-match": ifMatch });
      expectError(response, 412, "precondition_failed");
      expect(response.headers.etag).toBe('"3"');
      expect(response.json<{ message: string }>().message).toContain('ETag "3"');
      expect(await quantityOf(1)).toBe(3);
    },
  );

  it("404 for an unknown pet, with If-Match * or a tag", async () => {
    for (const ifMatch of ["*", '"3"']) {
      const response = await patch(404, 1, { "if-match": ifMatch });
      expectError(response, 404, "pet_not_found");
      expect(response.headers.etag).toBeUndefined();
    }
  });

  it.each(["", "7", '"7', "garbage", '*, "7"', "W/7"])(
    "400 invalid_header for If-Match %j, nothing changed",
    async (ifMatch) => {
      expectError(await patch(1, 9, { "if-match": ifMatch }), 400, "invalid_header");
      expect(await quantityOf(1)).toBe(3);
    },
  );

  it("lets only the first of two concurrent writes on one ETag pass: the second gets the first's", async () => {
    const [first, second] = await Promise.all([
      patch(1, 10, { "if-match": '"3"' }),
      patch(1, 11, { "if-match": '"3"' }),
    ]);
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).toBe('"10"');
    expect(second.statusCode).toBe(412);
    expect(second.headers.etag).toBe('"10"');
    expect(await quantityOf(1)).toBe(10);
  });
});

describe("PATCH /v1/inventory/{petId}: Idempotency-Key", () => {
  it("replays the stored 200 with Idempotent-Replayed: true and changes nothing", async () => {
    const first = await patch(1, 20, { "idempotency-key": "key-1" });
    expect(first.statusCode).toBe(200);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    await patch(1, 21);
    const again = await patch(1, 20, { "idempotency-key": "key-1" });
    expect(again.statusCode).toBe(200);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.headers.etag).toBe('"20"');
    expect(again.headers["content-type"]).toMatch(/^application\/json/);
    expect(again.body).toBe(first.body);
    expect(await quantityOf(1)).toBe(21);
  });

  it("replays a stored 412 and 404 the same way", async () => {
    const failed = await patch(1, 5, { "if-match": '"0"', "idempotency-key": "k412" });
    expectError(failed, 412, "precondition_failed");
    await patch(1, 0);
    const replayed = await patch(1, 5, { "if-match": '"0"', "idempotency-key": "k412" });
    expectError(replayed, 412, "precondition_failed");
    expect(replayed.headers.etag).toBe('"3"');
    expect(replayed.headers["idempotent-replayed"]).toBe("true");
    expect(replayed.body).toBe(failed.body);
    expect(await quantityOf(1)).toBe(0);

    const missing = await patch(404, 5, { "idempotency-key": "k404" });
    const missingAgain = await patch(404, 5, { "idempotency-key": "k404" });
    expectError(missingAgain, 404, "pet_not_found");
    expect(missingAgain.headers["idempotent-replayed"]).toBe("true");
    expect(missingAgain.body).toBe(missing.body);
  });

  it("treats a body written differently as the same request", async () => {
    await patch(1, 30, { "idempotency-key": "k" });
    const again = await t.app.inject({
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: { ...AUTH, "idempotency-key": "k", "content-type": "application/json" },
      payload: '{ "quantity" : 30 }',
    });
    expect(again.statusCode).toBe(200);
    expect(again.headers["idempotent-replayed"]).toBe("true");
  });

  it.each([
    ["another quantity", 2, 31, {}],
    ["another pet", 2, 30, {}],
    ["another If-Match", 1, 30, { "if-match": "*" }],
  ] as const)("422 idempotency_key_reused for %s, nothing changed", async (_name, petId, q, h) => {
    await patch(1, 30, { "idempotency-key": "k" });
    const response = await patch(petId, q, { "idempotency-key": "k", ...h });
    expectError(response, 422, "idempotency_key_reused");
    expect(response.headers.etag).toBeUndefined();
    expect(await quantityOf(1)).toBe(30);
    expect(await quantityOf(2)).toBe(0);
  });

  it("keeps keys per API key", async () => {
    await patch(1, 40, { "idempotency-key": "shared" });
    const other = await patch(1, 41, {
      "idempotency-key": "shared",
      authorization: "Bearer second-key",
    });
    expect(other.statusCode).toBe(200);
    expect(other.headers["idempotent-replayed"]).toBeUndefined();
    expect(await quantityOf(1)).toBe(41);
  });

  it("stores a digest of the API key, never the key, and logs neither", async () => {
    await patch(1, 42, { "idempotency-key": "k" });
    const db = new Database(t.dbPath, { readonly: true });
    const rows = db.prepare("SELECT owner, key FROM idempotency_records").all();
    db.close();
    expect(rows).toEqual([{ owner: createHash("sha256").update(API_KEY).digest("hex"), key: "k" }]);
    const logs = t.logs.join("\n");
    expect(logs).not.toContain(API_KEY);
    expect(logs).not.toContain(createHash("sha256").update(API_KEY).digest("hex"));
  });

  it("applies one of two concurrent requests with one new key and replays it to the other", async () => {
    const [a, b] = await Promise.all([
      patch(1, 50, { "idempotency-key": "race" }),
      patch(1, 50, { "idempotency-key": "race" }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
    expect([a.headers["idempotent-replayed"], b.headers["idempotent-replayed"]]).toEqual([
      undefined,
      "true",
    ]);
    expect(a.body).toBe(b.body);
  });

  it("applies a request again once its key's record is 24 hours old", async () => {
    await patch(1, 60, { "idempotency-key": "k" });
    await patch(1, 61);
    now += 24 * 60 * 60_000 - 1;
    expect((await patch(1, 60, { "idempotency-key": "k" })).headers["idempotent-replayed"]).toBe(
      "true",
    );
    expect(await quantityOf(1)).toBe(61);
    now += 1;
    const fresh = await patch(1, 60, { "idempotency-key": "k" });
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers["idempotent-replayed"]).toBeUndefined();
    expect(await quantityOf(1)).toBe(60);
  });

  it.each([
    ["empty", ""],
    ["too long", "k".repeat(256)],
    ["with a space", "a b"],
    ["non-ASCII", "cl\u00e9"],
  ])("400 invalid_header for a key %s, nothing changed", async (_name, key) => {
    const response = await t.app.inject({
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: { ...AUTH, "idempotency-key": key },
      payload: { quantity: 9 },
    });
    expectError(response, 400, "invalid_header");
    expect(await quantityOf(1)).toBe(3);
  });

  it("503 while another process holds the write lock, and no record is kept", async () => {
    const locked = await createLockedTestApp(20);
    const request = {
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: { ...AUTH, "idempotency-key": "k", "if-match": '"3"' },
      payload: { quantity: 9 },
    } as const;
    const busy = await locked.app.inject(request);
    locked.release();
    const after = await locked.app.inject(request);
    await locked.close();
    expectError(busy, 503, "unavailable");
    expect(busy.headers.etag).toBeUndefined();
    expect(after.statusCode).toBe(200);
    expect(after.headers["idempotent-replayed"]).toBeUndefined();
  });
});
