import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  checkChangeReason,
  decodeChangeReason,
  encodeChangeReason,
  fittedReason,
} from "../../src/api/change-reason.js";
import { parseChangeReason } from "../../src/server/change-reason.js";
import { HttpError } from "../../src/server/http-error.js";
import { AUTH, MAX_ID, createTestApp, type TestApp } from "./fixture.js";

describe("the change reason rule", () => {
  it.each([
    ["sale", "sale"],
    ["x".repeat(200), "x".repeat(200)],
    ["Inventur März 🐈", "Inventur März 🐈"],
    // 200 characters, each of them more than one byte and one UTF-16 unit.
    ["🐈".repeat(200), "🐈".repeat(200)],
  ])("accepts %j", (reason, value) => {
    expect(checkChangeReason(reason)).toEqual({ ok: true, value });
  });

  it.each([
    ["", "it is empty"],
    ["x".repeat(201), "it is 201 characters long; at most 200 are allowed"],
    ["two\nlines", "control character"],
    ["tab\there", "control character"],
    ["nul\u0000", "control character"],
    ["del\u007f", "control character"],
    ["c1\u0085", "control character"],
    ["line\u2028separator", "control character"],
  ])("refuses %j", (reason, problem) => {
    const checked = checkChangeReason(reason);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? "" : checked.problem).toContain(problem);
  });

  it("fits a reason the program writes from a file's name to the rule", () => {
    expect(fittedReason("seed pets.json")).toBe("seed pets.json");
    expect(fittedReason("seed odd\nname\u2028.json")).toBe("seed odd?name?.json");
    const long = fittedReason(`seed ${"é".repeat(300)}.json`);
    expect(Array.from(long)).toHaveLength(200);
    expect(checkChangeReason(long).ok).toBe(true);
  });

  it("travels as UTF-8 bytes, one header character per byte, and back", () => {
    const encoded = encodeChangeReason("März 🐈");
    expect(encoded).toBe("MÃ¤rz ð\u009f\u0090\u0088");
    expect(decodeChangeReason(encoded)).toBe("März 🐈");
    // A byte that starts no UTF-8 character.
    expect(decodeChangeReason("\u00ff")).toBeUndefined();
  });

  it("is read from the header, null when absent, 400 invalid_header when refused", () => {
    expect(parseChangeReason(undefined)).toBeNull();
    expect(parseChangeReason(encodeChangeReason("recount"))).toBe("recount");
    for (const header of ["", "x".repeat(201), "a\u0001b", "\u00ff", ["a", "b"]]) {
      expect(() => parseChangeReason(header)).toThrow(HttpError);
      try {
        parseChangeReason(header);
      } catch (error) {
        expect((error as HttpError).toBody()).toMatchObject({
          code: "invalid_header",
          status: 400,
        });
      }
    }
  });
});

describe("GET /v1/inventory/{petId}/history", () => {
  let t: TestApp;
  let now: number;
  beforeEach(async () => {
    now = Date.UTC(2026, 10, 22, 9, 30, 0, 123);
    t = await createTestApp({ clock: () => now });
  });
  afterEach(async () => {
    await t.close();
  });

  const patch = (petId: string, quantity: number, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: "PATCH",
      url: `/v1/inventory/${petId}`,
      headers: { ...AUTH, "content-type": "application/json", ...headers },
      payload: { quantity },
    });
  const history = (petId: string, query = "") =>
    t.app.inject({ method: "GET", url: `/v1/inventory/${petId}/history${query}`, headers: AUTH });

  it("lists the changes newest first, with the time, key name, request id and reason", async () => {
    const first = await patch("1", 7, { "x-change-reason": "sale" });
    now += 1000;
    const second = await patch("1", 4);
    expect(second.statusCode).toBe(200);
    const response = await history("1");
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    const records = JSON.parse(response.body) as Record<string, unknown>[];
    expect(records.slice(0, 2)).toEqual([
      {
        seq: expect.any(Number) as number,
        at: "2026-11-22T09:30:01.123Z",
        petId: 1,
        previous: 7,
        quantity: 4,
        keyName: "tester",
        requestId: expect.any(String) as string,
        reason: null,
        ref: null,
      },
      {
        seq: expect.any(Number) as number,
        at: "2026-11-22T09:30:00.123Z",
        petId: 1,
        previous: 3,
        quantity: 7,
        keyName: "tester",
        requestId: expect.any(String) as string,
        reason: "sale",
        ref: null,
      },
    ]);
    // The request id is the one the server logged for that PATCH.
    const logged = t.logs
      .map((line) => JSON.parse(line) as { reqId?: string; method?: string; status?: number })
      .filter((line) => line.method === "PATCH" && line.status === 200)
      .map((line) => line.reqId);
    expect(logged).toEqual([records[1]?.requestId, records[0]?.requestId]);
    expect(first.statusCode).toBe(200);
  });

  it("keeps int64 petIds exact and honours limit", async () => {
    for (const quantity of [1, 2, 3]) await patch(MAX_ID, quantity);
    const response = await history(MAX_ID, "?limit=2");
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain(`"petId":${MAX_ID},"previous":2,"quantity":3`);
    expect((JSON.parse(response.body) as unknown[]).length).toBe(2);
  });

  it("keeps a UTF-8 reason as written", async () => {
    await patch("1", 8, { "x-change-reason": encodeChangeReason("Inventur März") });
    expect(JSON.parse((await history("1", "?limit=1")).body)).toMatchObject([
      { reason: "Inventur März" },
    ]);
  });

  it.each(["0", "1001", "-1", "abc", "1.5", "01", "", "20&limit=30"])(
    "answers 400 invalid_limit for limit=%s",
    async (limit) => {
      const response = await history("1", `?limit=${limit}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: "invalid_limit", status: 400 });
    },
  );

  it("answers 404 for an unknown pet and 400 for a bad petId", async () => {
    const missing = await history("404");
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      code: "pet_not_found",
      message: "no pet with petId 404",
      status: 404,
    });
    const bad = await history("abc");
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: "invalid_pet_id", status: 400 });
  });

  it("needs a key, and allows GET only", async () => {
    const anonymous = await t.app.inject({ method: "GET", url: "/v1/inventory/1/history" });
    expect(anonymous.statusCode).toBe(401);
    const post = await t.app.inject({
      method: "POST",
      url: "/v1/inventory/1/history",
      headers: AUTH,
    });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe("GET, HEAD");
  });

  it("refuses a bad X-Change-Reason with 400 invalid_header, changing nothing", async () => {
    for (const reason of ["x".repeat(201), "a\u0001b"]) {
      const response = await patch("1", 9, { "x-change-reason": reason });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: "invalid_header", status: 400 });
    }
    const records = JSON.parse((await history("1")).body) as { quantity: number }[];
    expect(records.map((record) => record.quantity)).toEqual([3]);
  });

  it("writes no record for a 412 or an idempotent replay", async () => {
    expect((await patch("1", 5, { "if-match": '"99"' })).statusCode).toBe(412);
    expect((await patch("1", 5, { "idempotency-key": "k1" })).statusCode).toBe(200);
    const replay = await patch("1", 5, { "idempotency-key": "k1" });
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    const records = JSON.parse((await history("1")).body) as { quantity: number }[];
    expect(records.map((record) => record.quantity)).toEqual([5, 3]);
  });
});
