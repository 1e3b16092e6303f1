import Database from "better-sqlite3";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import { expectError } from "./expect-error.js";
import {
  AUTH,
  MAX_ID,
  PETS,
  createLockedTestApp,
  createTestApp,
  tempDir,
  type LockedTestApp,
  type TestApp,
} from "./fixture.js";

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(() => t.close());

const patch = (petId: string, payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: "PATCH",
    url: `/v1/inventory/${petId}`,
    headers: { ...AUTH, "content-type": "application/json", ...headers },
    payload: typeof payload === "string" ? payload : JSON.stringify(payload),
  });

describe("GET /v1/inventory", () => {
  it("lists every entry with petId, quantity and the pet's status, int64 ids exact", async () => {
    const response = await t.app.inject({ url: "/v1/inventory", headers: AUTH });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.body).toBe(
      `[{"petId":1,"quantity":3,"status":"available"},{"petId":2,"quantity":0,"status":"sold"},` +
        `{"petId":${MAX_ID},"quantity":5,"status":"pending"}]`,
    );
  });

  it("answers an empty store with an empty array", async () => {
    const empty = await createTestApp({ store: openSqliteStore(":memory:") });
    const response = await empty.app.inject({ url: "/v1/inventory", headers: AUTH });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe("[]");
    await empty.close();
  });

  it("reflects a write at once (the cached body is invalidated)", async () => {
    await t.app.inject({ url: "/v1/inventory", headers: AUTH });
    expect((await patch("1", { quantity: 11 })).statusCode).toBe(200);
    const response = await t.app.inject({ url: "/v1/inventory", headers: AUTH });
    expect(response.body).toContain('{"petId":1,"quantity":11,"status":"available"}');
  });

  it("reflects a write made by another process to the database at once", async () => {
    const temp = tempDir();
    const dbPath = join(temp.dir, "petstore.db");
    const store = openSqliteStore(dbPath);
    await store.seedIfEmpty(PETS);
    const watched = await createTestApp({ store });
    const get = () => watched.app.inject({ url: "/v1/inventory", headers: AUTH });
    await get();
    const other = openSqliteStore(dbPath);
    await other.updateQuantity(2n, 99);
    expect((await get()).body).toContain('{"petId":2,"quantity":99,"status":"sold"}');
    await other.updateQuantity(2n, 98);
    await other.close();
    expect((await get()).body).toContain('{"petId":2,"quantity":98,"status":"sold"}');
    await watched.close();
    temp.remove();
  });

  it("answers HEAD like GET without a body", async () => {
    const response = await t.app.inject({ method: "HEAD", url: "/v1/inventory", headers: AUTH });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe("");
  });
});

describe("PATCH /v1/inventory/{petId}", () => {
  it("sets the quantity and returns the entry with the pet's status (rule 1)", async () => {
    const response = await patch("2", { quantity: 7 });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ petId: 2, quantity: 7, status: "sold" });
    expect((await t.store.listInventory()).items.find((item) => item.petId === 2n)?.quantity).toBe(
      7,
    );
  });

  it("accepts 0 and 2147483647", async () => {
    expect((await patch("1", { quantity: 0 })).json()).toMatchObject({ quantity: 0 });
    expect((await patch("1", { quantity: 2147483647 })).json()).toMatchObject({
      quantity: 2147483647,
    });
  });

  it("matches and returns the largest int64 petId exactly", async () => {
    const response = await patch(MAX_ID, { quantity: 8 });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(`{"petId":${MAX_ID},"quantity":8,"status":"pending"}`);
  });

  it.each([
    ["a string", { quantity: "5" }],
    ["a fraction", { quantity: 5.5 }],
    ["a negative number", { quantity: -1 }],
    ["null", { quantity: null }],
    ["a boolean", { quantity: true }],
    ["too large", { quantity: 2147483648 }],
    ["missing", {}],
    ["an extra field", { quantity: 5, status: "sold" }],
    ["an array body", [5]],
    ["a bare number body", 5],
  ])("rejects a quantity that is %s with 400 and changes nothing (rule 2)", async (_what, body) => {
    const response = await patch("1", body);
    expectError(response, 400, "invalid_body");
    expect((await t.store.listInventory()).items[0]?.quantity).toBe(3);
  });

  it.each([
    ["malformed JSON", '{"quantity": 5'],
    ["an empty body", ""],
  ])("rejects %s with 400 invalid_json", async (_what, payload) => {
    expectError(await patch("1", payload), 400, "invalid_json");
  });

  it.each([
    // The parser makes `__proto__` a field of the body (never its prototype): an unknown one.
    ["a prototype-poisoning body", '{"quantity": 5, "__proto__": {"x": 1}}'],
    // Written as text: JSON.parse rounds it to 2147483647, which would pass every check.
    ["a fraction a hair above the largest quantity", '{"quantity": 2147483647.0000001}'],
    // Also written as text: JSON.parse makes it exactly 5.
    ["a fraction a hair above a small one", '{"quantity": 5.0000000000000001}'],
    ["an exponent that leaves a fraction", '{"quantity": 25e-1}'],
  ])("rejects %s with 400 invalid_body and changes nothing", async (_what, payload) => {
    expectError(await patch("1", payload), 400, "invalid_body");
    expect((await t.store.listInventory()).items[0]?.quantity).toBe(3);
  });

  it("reads a body that starts with a byte order mark, as RFC 8259 lets a reader", async () => {
    const response = await patch("1", '\uFEFF{"quantity": 6}');
    expect(response.statusCode).toBe(200);
    expect(response.json<{ quantity: number }>().quantity).toBe(6);
  });

  it("answers text that is not JSON invalid_json, whatever names it repeats", async () => {
    expectError(await patch("1", '{"quantity": 5, "quantity": 7'), 400, "invalid_json");
  });

  it("rejects a body that names quantity twice, whichever value comes last", async () => {
    for (const payload of ['{"quantity": 5, "quantity": 7}', '{"quantity":7,"quantity":7}']) {
      const response = await patch("1", payload);
      expectError(response, 400, "invalid_body");
      expect(response.json<{ message: string }>().message).toBe(
        'the body names "quantity" twice in one object: say it once',
      );
    }
    expect((await t.store.listInventory()).items[0]?.quantity).toBe(3);
  });

  it.each([
    ["5.0", 5],
    ["1e1", 10],
    ["1.5e1", 15],
    ["2147483647.0", 2147483647],
  ])(
    "takes %s, a whole number written with a point or an exponent, as JSON Schema does",
    async (text, quantity) => {
      const response = await patch("1", `{"quantity": ${text}}`);
      expect(response.statusCode).toBe(200);
      expect(response.json<{ quantity: number }>().quantity).toBe(quantity);
    },
  );

  it("rejects a request without a body with 400", async () => {
    const response = await t.app.inject({ method: "PATCH", url: "/v1/inventory/1", headers: AUTH });
    expectError(response, 400, "invalid_body");
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", "application/xml"])(
    "rejects content type %s with 415",
    async (type) => {
      expectError(
        await patch("1", '{"quantity":5}', { "content-type": type }),
        415,
        "unsupported_media_type",
      );
    },
  );

  it("accepts application/json with a charset", async () => {
    const response = await patch(
      "1",
      { quantity: 4 },
      { "content-type": "application/json; charset=utf-8" },
    );
    expect(response.statusCode).toBe(200);
  });

  it("answers 404 pet_not_found for an unknown pet (rule 3)", async () => {
    const response = await patch("404", { quantity: 1 });
    expectError(response, 404, "pet_not_found");
    expect(response.json<{ message: string }>().message).toContain("404");
  });

  it.each([
    "abc",
    "0",
    "-1",
    "01",
    "1.5",
    "1e3",
    "+7",
    "9223372036854775808",
    "99999999999999999999",
  ])("rejects petId %s with 400 invalid_pet_id", async (petId) => {
    expectError(await patch(petId, { quantity: 1 }), 400, "invalid_pet_id");
  });

  it("rejects a body over the size limit with 413", async () => {
    const response = await patch("1", JSON.stringify({ quantity: 1, pad: "x".repeat(20_000) }));
    expectError(response, 413, "payload_too_large");
  });

  it("checks the key before anything else (rule 4)", async () => {
    const response = await t.app.inject({
      method: "PATCH",
      url: "/v1/inventory/abc",
      headers: { "content-type": "application/json" },
      payload: "not json",
    });
    expectError(response, 401, "unauthorized");
  });
});

/**
 * A 503 for a lock held elsewhere is a handled condition: logged as a warning saying what was
 * answered, without a stack, and nothing at error level.
 */
function expectLoggedAsRefusal(logs: readonly string[], message: string): void {
  const lines = logs.map((line) => JSON.parse(line) as { level: number; msg?: string });
  expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  const refusal = lines.find((line) => line.level === 40 && line.msg === "request refused");
  expect(refusal).toMatchObject({ status: 503, code: "unavailable", reason: message });
  expect(refusal).not.toHaveProperty("err");
  expect(logs.join("\n")).not.toMatch(/stack|\bat .*\.ts:/);
}

describe("another process holds the database's lock", () => {
  let locked: LockedTestApp;
  beforeEach(async () => {
    // A real, short lock time-out: the requests below wait 50 ms for the lock.
    locked = await createLockedTestApp(50);
  });
  afterEach(() => locked.close());

  it("answers a PATCH 503 unavailable with Retry-After after its time-out, changing nothing", async () => {
    const response = await locked.app.inject({
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: { ...AUTH, "content-type": "application/json" },
      payload: { quantity: 42 },
    });
    expectError(response, 503, "unavailable");
    expect(response.headers["retry-after"]).toBe("1");
    expect(response.json<{ message: string }>().message).toBe(
      "the database is locked by another process; nothing was changed, retry later",
    );
    locked.release();
    expect((await locked.store.listInventory()).items[0]?.quantity).toBe(3);
    expectLoggedAsRefusal(
      locked.logs,
      "the database is locked by another process; nothing was changed, retry later",
    );
  });

  it("keeps serving GETs meanwhile", async () => {
    const response = await locked.app.inject({ url: "/v1/inventory", headers: AUTH });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('{"petId":1,"quantity":3,"status":"available"}');
    expect((await locked.app.inject({ url: "/healthz" })).statusCode).toBe(200);
  });

  it("answers a read that stays locked 503 unavailable with Retry-After", async () => {
    // A reader meets a lock only in rare states (see the store's tests): SQLITE_BUSY.
    const statement = Object.getPrototypeOf(
      locked.locker.prepare("SELECT 1"),
    ) as Database.Statement;
    vi.spyOn(statement, "all").mockImplementation(() => {
      throw new Database.SqliteError("database is locked", "SQLITE_BUSY");
    });
    try {
      const response = await locked.app.inject({ url: "/v1/store/orders", headers: AUTH });
      expectError(response, 503, "unavailable");
      expect(response.headers["retry-after"]).toBe("1");
      expect(response.json<{ message: string }>().message).toMatch(
        /^the database is locked by another process \(waited \d+ ms\); retry later$/,
      );
      expectLoggedAsRefusal(locked.logs, response.json<{ message: string }>().message);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
