import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEMO_ORDERS, DEMO_PETS } from "../../src/server/demo-data.js";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import { expectError } from "./expect-error.js";
import { AUTH, MAX_ID, createTestApp, type TestApp } from "./fixture.js";

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(() => t.close());

describe("GET /v1/pets/{petId} (deprecated)", () => {
  it("returns the pet in the Swagger Petstore shape", async () => {
    const response = await t.app.inject({ url: "/v1/pets/2", headers: AUTH });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: 2,
      name: "Tom",
      status: "sold",
      category: { id: 2, name: "Cats" },
      photoUrls: ["https://x/tom.png"],
      tags: [{ id: 7, name: "cat" }],
    });
  });

  it("returns an int64 id exactly", async () => {
    const response = await t.app.inject({ url: `/v1/pets/${MAX_ID}`, headers: AUTH });
    expect(response.body).toContain(`"id":${MAX_ID}`);
  });

  it("carries Deprecation (RFC 9745) and a later Sunset (RFC 8594)", async () => {
    const response = await t.app.inject({ url: "/v1/pets/1", headers: AUTH });
    const deprecation = String(response.headers.deprecation);
    const sunset = String(response.headers.sunset);
    expect(deprecation).toMatch(/^@\d+$/);
    expect(sunset).toMatch(/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(Date.parse(sunset)).toBeGreaterThan(Number(deprecation.slice(1)) * 1000);
  });

  it("answers 404 pet_not_found, still with the deprecation headers", async () => {
    const response = await t.app.inject({ url: "/v1/pets/12345", headers: AUTH });
    expectError(response, 404, "pet_not_found");
    expect(response.headers.deprecation).toBeDefined();
  });

  it("answers 400 invalid_pet_id for a bad id", async () => {
    expectError(await t.app.inject({ url: "/v1/pets/x1", headers: AUTH }), 400, "invalid_pet_id");
  });
});

describe("GET /v1/store/orders", () => {
  it("lists orders in the Swagger Petstore shape", async () => {
    const store = openSqliteStore(":memory:");
    await store.seedIfEmpty(DEMO_PETS, DEMO_ORDERS);
    const demo = await createTestApp({ store });
    const response = await demo.app.inject({ url: "/v1/store/orders", headers: AUTH });
    expect(response.statusCode).toBe(200);
    const orders = response.json<Record<string, unknown>[]>();
    expect(orders).toHaveLength(DEMO_ORDERS.length);
    expect(orders[0]).toEqual({
      id: 1,
      petId: 3,
      quantity: 1,
      shipDate: "2026-11-20T10:00:00.000Z",
      status: "approved",
      complete: false,
    });
    await demo.close();
  });

  it("answers an empty list when there are no orders", async () => {
    const response = await t.app.inject({ url: "/v1/store/orders", headers: AUTH });
    expect(response.json()).toEqual([]);
  });
});
