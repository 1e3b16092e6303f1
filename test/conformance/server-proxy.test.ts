/**
 * Server conformance, judged by a tool we did not write: the real `petstore serve` behind
 * Stoplight Prism's validating proxy, which checks every request and response against
 * openapi/inventory.json. Every operation goes through every status the document gives it.
 *
 * Two proxies stand in front of the one server:
 * - strict, `prism proxy --errors`, for requests the document allows: Prism forwards them and
 *   replaces any response that breaks the document with its own 500 listing the violations;
 * - observing, `prism proxy` without `--errors`, for requests the document forbids (a bad
 *   body or petId, no key): Prism forwards them anyway and lists what it found in an
 *   `sl-violations` header. Request violations there show that the document rejects what the
 *   server rejects; a response violation fails the test. (With `--errors` Prism would answer
 *   such a request itself, 401 or 422, and the server would never see it.)
 *
 * The server and the proxies are server-proxy-harness.ts; the batch cases are
 * batch-proxy-cases.ts and the change feed's feed-proxy-cases.ts, registered here so that the
 * coverage check below sees them (the feed's last: it lists the changes the others made).
 *
 * The server runs with `--demo` rather than `--seed`: a seed file holds pets only, and the
 * Order schema is only tested by a non-empty order list.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../e2e/support/servers.js";
import { whileSqliteLocked } from "../support/sqlite-lock.js";
import { describeBatchThroughProxy } from "./batch-proxy-cases.js";
import { describeFeedThroughProxy } from "./feed-proxy-cases.js";
import { DOCUMENT, type PrismProcess } from "./prism.js";
import {
  READ_KEY,
  conforming,
  covered,
  forbidden,
  send,
  startProxySuite,
  stopProxySuite,
} from "./server-proxy-harness.js";

/**
 * A response header as openapi/inventory.json (the document Prism validates with) declares
 * it: Prism checks a declared header's presence (when required) and value, and lets an
 * undeclared one through unchecked, so a header is conformance-checked only when declared.
 */
function declaredHeader(
  path: string,
  method: string,
  status: string,
  name: string,
): { required?: boolean; schema?: { type?: string; pattern?: string } } | undefined {
  const document = JSON.parse(readFileSync(DOCUMENT, "utf8")) as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { headers?: Record<string, object> }> }>
    >;
  };
  return document.paths[path]?.[method]?.responses[status]?.headers?.[name];
}

let server: RunningServer | undefined;
let strict: PrismProcess;
let observing: PrismProcess;
/** The demo pets' ids, and one that no pet has. */
let petIds: number[];
let unknownId: number;

beforeAll(async () => {
  ({ server, strict, observing, petIds, unknownId } = await startProxySuite());
}, 30_000);

afterAll(stopProxySuite);

describe("GET /inventory (listInventory) through prism proxy", () => {
  it("200: every stock entry", async () => {
    const { body } = await conforming("listInventory", { path: "/inventory" }, 200);
    expect((body as unknown[]).length).toBe(petIds.length);
  });

  it("401: a key the server does not accept", async () => {
    const { headers } = await conforming(
      "listInventory",
      { path: "/inventory", key: "not-a-key" },
      401,
    );
    expect(headers.get("www-authenticate")).toBe('Bearer realm="petstore", error="invalid_token"');
  });

  it("401: no key", async () => {
    await forbidden("listInventory", { path: "/inventory", key: null }, 401);
  });
});

describe("GET /inventory/{petId} (getInventoryItem) through prism proxy", () => {
  it("200: one entry with its ETag", async () => {
    const petId = petIds[1];
    const { body, headers } = await conforming(
      "getInventoryItem",
      { path: `/inventory/${petId}` },
      200,
    );
    expect(body).toMatchObject({ petId });
    expect(headers.get("etag")).toBe(`"${(body as { quantity: number }).quantity}"`);
  });

  it("200: Inventory-Seq is declared, required, so Prism checks it; the answer carries it", async () => {
    const declared = declaredHeader("/inventory/{petId}", "get", "200", "Inventory-Seq");
    expect(declared).toMatchObject({
      required: true,
      schema: { type: "string", pattern: "^(0|[1-9][0-9]*)$" },
    });
    const { headers } = await conforming(
      "getInventoryItem",
      { path: `/inventory/${petIds[1]}` },
      200,
    );
    const seq = headers.get("inventory-seq");
    expect(seq).toMatch(new RegExp(declared?.schema?.pattern ?? "^$"));
    // The store's latest seq, not the pet's own: a read of the whole inventory says the same.
    const list = await conforming("listInventory", { path: "/inventory" }, 200);
    expect(declaredHeader("/inventory", "get", "200", "Inventory-Seq")).toMatchObject({
      required: true,
    });
    expect(list.headers.get("inventory-seq")).toBe(seq);
  });

  it("400: a petId that is not a positive int64", async () => {
    for (const petId of ["abc", "0", "9223372036854775808"]) {
      const { body } = await forbidden("getInventoryItem", { path: `/inventory/${petId}` }, 400);
      expect(body).toMatchObject({ code: "invalid_pet_id" });
    }
  });

  it("401: a key the server does not accept, or none", async () => {
    await conforming("getInventoryItem", { path: "/inventory/1", key: "not-a-key" }, 401);
    await forbidden("getInventoryItem", { path: "/inventory/1", key: null }, 401);
  });

  it("404: no pet with this petId", async () => {
    const { body } = await conforming("getInventoryItem", { path: `/inventory/${unknownId}` }, 404);
    expect(body).toMatchObject({ code: "pet_not_found" });
  });
});

describe("PATCH /inventory/{petId} (updateInventory) through prism proxy", () => {
  it("200: the updated entry, for the smallest and largest quantity too", async () => {
    for (const quantity of [5, 0, 2147483647]) {
      const petId = petIds[0];
      const { body } = await conforming(
        "updateInventory",
        { method: "PATCH", path: `/inventory/${petId}`, body: JSON.stringify({ quantity }) },
        200,
      );
      expect(body).toMatchObject({ petId, quantity });
    }
  });

  it("400: a body or petId the document forbids as well", async () => {
    const cases: [path: string, body: string, code: string][] = [
      ["/inventory/1", '{"quantity":-4}', "invalid_body"],
      ["/inventory/1", '{"quantity":2147483648}', "invalid_body"],
      ["/inventory/1", '{"quantity":"5"}', "invalid_body"],
      ["/inventory/1", '{"quantity":1.5}', "invalid_body"],
      ["/inventory/1", "{}", "invalid_body"],
      ["/inventory/1", '{"quantity":5,"status":"sold"}', "invalid_body"],
      ["/inventory/abc", '{"quantity":5}', "invalid_pet_id"],
      ["/inventory/0", '{"quantity":5}', "invalid_pet_id"],
      ["/inventory/9223372036854775808", '{"quantity":5}', "invalid_pet_id"],
    ];
    for (const [path, body, code] of cases) {
      const exchange = await forbidden("updateInventory", { method: "PATCH", path, body }, 400);
      expect(exchange.body, `${path} ${body}`).toMatchObject({ code });
    }
  });

  it("401: a key the server does not accept, or none", async () => {
    const call = { method: "PATCH", path: "/inventory/1", body: '{"quantity":5}' } as const;
    await conforming("updateInventory", { ...call, key: "not-a-key" }, 401);
    await forbidden("updateInventory", { ...call, key: null }, 401);
  });

  it("404: no pet with this petId", async () => {
    const { body } = await conforming(
      "updateInventory",
      { method: "PATCH", path: `/inventory/${unknownId}`, body: '{"quantity":5}' },
      404,
    );
    expect(body).toMatchObject({ code: "pet_not_found" });
  });

  it("200 and 412 with If-Match, each with the ETag; a replay with Idempotent-Replayed", async () => {
    const petId = petIds[2];
    const path = `/inventory/${petId}`;
    const set = await conforming(
      "updateInventory",
      { method: "PATCH", path, body: '{"quantity":8}', headers: { "if-match": "*" } },
      200,
    );
    expect(set.headers.get("etag")).toBe('"8"');
    const call = {
      method: "PATCH",
      path,
      body: '{"quantity":9}',
      headers: { "if-match": '"7", W/"8"', "idempotency-key": "conformance-412" },
    } as const;
    const failed = await conforming("updateInventory", call, 412);
    expect(failed.body).toMatchObject({ code: "precondition_failed" });
    expect(failed.headers.get("etag")).toBe('"8"');
    const replayed = await conforming("updateInventory", call, 412);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect(replayed.body).toEqual(failed.body);
    const keyed = {
      method: "PATCH",
      path,
      body: '{"quantity":9}',
      headers: { "if-match": '"8"', "idempotency-key": "conformance-200" },
    } as const;
    await conforming("updateInventory", keyed, 200);
    const again = await conforming("updateInventory", keyed, 200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("etag")).toBe('"9"');
  });

  it("400: a malformed If-Match or Idempotency-Key", async () => {
    const call = { method: "PATCH", path: "/inventory/1", body: '{"quantity":5}' } as const;
    for (const headers of [
      { "if-match": "7" },
      { "if-match": "garbage" },
      { "idempotency-key": "with space" },
      { "idempotency-key": "k".repeat(256) },
    ]) {
      const { body } = await forbidden("updateInventory", { ...call, headers }, 400);
      expect(body, JSON.stringify(headers)).toMatchObject({ code: "invalid_header" });
    }
  });

  it("400: an X-Change-Reason over 200 characters or with a control character, nothing changed", async () => {
    const path = `/inventory/${petIds[0]}`;
    const before = await send(strict, { path });
    // A tab, and a C1 control character sent as its UTF-8 bytes (what HTTP clients can send).
    // The document's pattern refuses them too: Prism flags the request, the server answers 400.
    for (const reason of ["r".repeat(201), "tab\there", "\u00c2\u0085"]) {
      const { body } = await forbidden(
        "updateInventory",
        { method: "PATCH", path, body: '{"quantity":3}', headers: { "x-change-reason": reason } },
        400,
      );
      expect(body).toMatchObject({ code: "invalid_header" });
    }
    expect((await send(strict, { path })).body).toEqual(before.body);
  });

  it("422: an Idempotency-Key used before for a different request", async () => {
    const path = `/inventory/${petIds[0]}`;
    const headers = { "idempotency-key": "conformance-422" };
    await conforming(
      "updateInventory",
      { method: "PATCH", path, body: '{"quantity":1}', headers },
      200,
    );
    const { body } = await conforming(
      "updateInventory",
      { method: "PATCH", path, body: '{"quantity":2}', headers },
      422,
    );
    expect(body).toMatchObject({ code: "idempotency_key_reused" });
  });

  it("403: a read-only key (scope read), nothing changed", async () => {
    const path = `/inventory/${petIds[0]}`;
    const before = await send(strict, { path });
    const { body } = await conforming(
      "updateInventory",
      { method: "PATCH", path, key: READ_KEY, body: '{"quantity":6}' },
      403,
    );
    expect(body).toMatchObject({ code: "forbidden" });
    expect((await send(strict, { path })).body).toEqual(before.body);
  });

  it("503: another process holds the database's write lock for longer than the server waits", async () => {
    if (!server) throw new Error("the server did not start");
    const { body, headers } = await whileSqliteLocked(server.dbPath, () =>
      conforming(
        "updateInventory",
        { method: "PATCH", path: `/inventory/${petIds[0]}`, body: '{"quantity":6}' },
        503,
      ),
    );
    expect(body).toMatchObject({ code: "unavailable" });
    expect(headers.get("retry-after")).toBe("1");
  });
});

describe("GET /inventory/{petId}/history (getInventoryHistory) through prism proxy", () => {
  it("200: the changes newest first, a reason and the demo seed's record among them", async () => {
    const petId = petIds[2];
    const path = `/inventory/${petId}`;
    await conforming(
      "updateInventory",
      {
        method: "PATCH",
        path,
        body: '{"quantity":4}',
        headers: { "x-change-reason": "conformance recount" },
      },
      200,
    );
    const { body } = await conforming(
      "getInventoryHistory",
      { path: `${path}/history?limit=1000` },
      200,
    );
    const records = body as { quantity: number; reason: string | null; keyName: string | null }[];
    expect(records[0]).toMatchObject({ quantity: 4, reason: "conformance recount" });
    expect(records.at(-1)).toMatchObject({ keyName: null, reason: "demo data" });
    const limited = await conforming(
      "getInventoryHistory",
      { path: `${path}/history?limit=1` },
      200,
    );
    expect(limited.body).toEqual([records[0]]);
  });

  it("400: a petId that is not a positive int64, or a limit out of 1 to 1000", async () => {
    const { body } = await forbidden(
      "getInventoryHistory",
      { path: "/inventory/abc/history" },
      400,
    );
    expect(body).toMatchObject({ code: "invalid_pet_id" });
    for (const limit of ["0", "1001", "abc"]) {
      const { body: refused } = await forbidden(
        "getInventoryHistory",
        { path: `/inventory/${petIds[0]}/history?limit=${limit}` },
        400,
      );
      expect(refused, limit).toMatchObject({ code: "invalid_limit" });
    }
  });

  it("401: a key the server does not accept, or none", async () => {
    await conforming(
      "getInventoryHistory",
      { path: "/inventory/1/history", key: "not-a-key" },
      401,
    );
    await forbidden("getInventoryHistory", { path: "/inventory/1/history", key: null }, 401);
  });

  it("404: no pet with this petId", async () => {
    const { body } = await conforming(
      "getInventoryHistory",
      { path: `/inventory/${unknownId}/history` },
      404,
    );
    expect(body).toMatchObject({ code: "pet_not_found" });
  });
});

describeBatchThroughProxy();

describe("GET /pets/{petId} (getPetById, deprecated) through prism proxy", () => {
  it("200: every pet, with Deprecation and Sunset headers", async () => {
    for (const petId of petIds) {
      const { body, headers } = await conforming("getPetById", { path: `/pets/${petId}` }, 200);
      expect(body).toMatchObject({ id: petId });
      expect(headers.get("deprecation")).toMatch(/^@\d+$/);
      expect(headers.get("sunset")).toMatch(/ GMT$/);
    }
  });

  it("400: a petId that is not a positive int64", async () => {
    for (const petId of ["abc", "0", "-1"]) {
      const { body } = await forbidden("getPetById", { path: `/pets/${petId}` }, 400);
      expect(body).toMatchObject({ code: "invalid_pet_id" });
    }
  });

  it("401: a key the server does not accept, or none", async () => {
    await conforming("getPetById", { path: "/pets/1", key: "not-a-key" }, 401);
    await forbidden("getPetById", { path: "/pets/1", key: null }, 401);
  });

  it("404: no pet with this petId", async () => {
    await conforming("getPetById", { path: `/pets/${unknownId}` }, 404);
  });
});

describe("GET /store/orders (listOrders) through prism proxy", () => {
  it("200: the orders", async () => {
    const { body } = await conforming("listOrders", { path: "/store/orders" }, 200);
    expect((body as unknown[]).length).toBeGreaterThan(0);
  });

  it("401: a key the server does not accept, or none", async () => {
    await conforming("listOrders", { path: "/store/orders", key: "not-a-key" }, 401);
    await forbidden("listOrders", { path: "/store/orders", key: null }, 401);
  });
});

describeFeedThroughProxy();

describe("the proxies themselves", () => {
  it("strict: Prism answers a request the document forbids itself, without forwarding it", async () => {
    const noKey = await send(strict, { path: "/inventory", key: null });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("x-request-id")).toBeNull();
    const badBody = await send(strict, {
      method: "PATCH",
      path: "/inventory/1",
      body: '{"quantity":-4}',
    });
    expect(badBody.status).toBe(422);
    expect(badBody.headers.get("x-request-id")).toBeNull();
  });

  it("covered every status the document gives every operation", () => {
    const document = JSON.parse(readFileSync(DOCUMENT, "utf8")) as {
      paths: Record<string, Record<string, { operationId: string; responses: object }>>;
    };
    const documented = Object.values(document.paths).flatMap((operations) =>
      Object.values(operations).flatMap(({ operationId, responses }) =>
        Object.keys(responses)
          .filter((status) => status !== "default")
          .map((status) => `${operationId} ${status}`),
      ),
    );
    expect([...covered].sort()).toEqual(documented.sort());
  });

  it("logged no response violation", () => {
    expect(strict.violationLines()).toEqual([]);
    expect(
      observing.violationLines().filter((line) => line.includes("Violation: response")),
    ).toEqual([]);
  });
});
