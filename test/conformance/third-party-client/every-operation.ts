/**
 * A program as a third party would write it: every operation of the document called through
 * openapi-fetch, typed by the paths openapi-typescript generated from the document
 * (inventory-paths.ts), with the answers it should get, success and errors. It returns each
 * exchange; third-party-client.test.ts type-checks this file with `tsc --strict` and checks
 * every answer against the document.
 */
import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "./inventory-paths.js";

/** One request and its answer, as the client saw them. */
export interface Exchange {
  /** The document's path (`/inventory/{petId}`) and method (`patch`). */
  path: string;
  method: string;
  /** The status the program asked for, and the one it got. */
  expected: number;
  status: number;
  headers: Headers;
  /** The body as JSON; undefined when there was none. */
  body: unknown;
}

/** The server to call: its base URL (ending in /v1), a write key and a read key. */
export interface Target {
  baseUrl: string;
  writeKey: string;
  readKey: string;
  /** Runs `calls` while another process holds the database's write lock. */
  whileStoreLocked(calls: () => Promise<void>): Promise<void>;
}

/** No pet has this id. */
const UNKNOWN_PET = 999_999;

/** Calls every operation of the document, each for its answers; returns the exchanges. */
export async function callEveryOperation(target: Target): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  /** Options that record the request's exchange, expecting `status`. */
  const expecting = (expected: number): { middleware: Middleware[] } => ({
    middleware: [
      {
        async onResponse({ schemaPath, request, response }) {
          const text = await response.clone().text();
          exchanges.push({
            path: schemaPath,
            method: request.method.toLowerCase(),
            expected,
            status: response.status,
            headers: response.headers,
            body: text === "" ? undefined : JSON.parse(text),
          });
        },
      },
    ],
  });
  const clientWith = (key: string | undefined) =>
    createClient<paths>({
      baseUrl: target.baseUrl,
      headers: key === undefined ? {} : { Authorization: `Bearer ${key}` },
    });
  const writer = clientWith(target.writeKey);
  const reader = clientWith(target.readKey);
  const anonymous = clientWith(undefined);

  // listInventory: the entries give the pets the other calls use.
  const list = await reader.GET("/inventory", expecting(200));
  const [first, second] = list.data ?? [];
  if (!first || !second) throw new Error("the server holds fewer than two pets");
  await anonymous.GET("/inventory", expecting(401));

  // getInventoryItem: its ETag makes the PATCH below conditional.
  const item = await writer.GET("/inventory/{petId}", {
    params: { path: { petId: first.petId } },
    ...expecting(200),
  });
  const etag = item.response.headers.get("etag") ?? "*";
  await writer.GET("/inventory/{petId}", {
    params: { path: { petId: 0 } },
    ...expecting(400),
  });
  await reader.GET("/inventory/{petId}", {
    params: { path: { petId: UNKNOWN_PET } },
    ...expecting(404),
  });
  await anonymous.GET("/inventory/{petId}", {
    params: { path: { petId: first.petId } },
    ...expecting(401),
  });

  // updateInventory
  const reason = Buffer.from("März recount 🐈", "utf8").toString("latin1");
  const update = {
    params: {
      path: { petId: first.petId },
      header: { "If-Match": etag, "Idempotency-Key": "third-party-1", "X-Change-Reason": reason },
    },
    body: { quantity: (item.data?.quantity ?? 0) + 1 },
  };
  await writer.PATCH("/inventory/{petId}", { ...update, ...expecting(200) });
  // The same key and request again: the stored answer, with Idempotent-Replayed.
  await writer.PATCH("/inventory/{petId}", { ...update, ...expecting(200) });
  await writer.PATCH("/inventory/{petId}", {
    ...update,
    body: { quantity: 1 },
    ...expecting(422),
  });
  // A comma inside an entity-tag is part of it: "4,5" is no quantity, so it does not match.
  await writer.PATCH("/inventory/{petId}", {
    params: { path: { petId: first.petId }, header: { "If-Match": '"4,5"' } },
    body: { quantity: 1 },
    ...expecting(412),
  });
  // obs-text in a tag: "ü" goes out as the byte 0xFC, a valid tag that no quantity has either.
  await writer.PATCH("/inventory/{petId}", {
    params: { path: { petId: first.petId }, header: { "If-Match": 'W/"7", "\u00fc"' } },
    body: { quantity: 1 },
    ...expecting(412),
  });
  await writer.PATCH("/inventory/{petId}", {
    params: { path: { petId: first.petId }, header: { "If-Match": '*, "7"' } },
    body: { quantity: 1 },
    ...expecting(400),
  });
  await writer.PATCH("/inventory/{petId}", {
    params: { path: { petId: first.petId }, header: { "X-Change-Reason": "x".repeat(201) } },
    body: { quantity: 1 },
    ...expecting(400),
  });
  await writer.PATCH("/inventory/{petId}", {
    params: { path: { petId: first.petId } },
    body: { quantity: -1 },
    ...expecting(400),
  });
  await writer.PATCH("/inventory/{petId}", {
    params: { path: { petId: UNKNOWN_PET }, header: { "If-Match": "*" } },
    body: { quantity: 1 },
    ...expecting(404),
  });
  await anonymous.PATCH("/inventory/{petId}", {
    params: { path: { petId: first.petId } },
    body: { quantity: 1 },
    ...expecting(401),
  });
  await reader.PATCH("/inventory/{petId}", {
    params: { path: { petId: first.petId } },
    body: { quantity: 1 },
    ...expecting(403),
  });

  // applyInventoryBatch
  const sale = {
    params: { header: { "Idempotency-Key": "third-party-batch", "X-Change-Reason": reason } },
    body: { changes: [{ petId: second.petId, delta: -1, ref: "third-party:sale-1" }] },
  };
  await writer.POST("/inventory/batch", { ...sale, ...expecting(200) });
  await writer.POST("/inventory/batch", { ...sale, ...expecting(200) });
  await writer.POST("/inventory/batch", {
    ...sale,
    body: { changes: [{ petId: second.petId, delta: 1 }] },
    ...expecting(422),
  });
  await writer.POST("/inventory/batch", {
    body: {
      changes: [
        { petId: second.petId, delta: 1, ref: "third-party:sale-1" },
        { petId: second.petId, quantity: 9, ifQuantity: 123_456 },
        { petId: UNKNOWN_PET, delta: 1 },
      ],
    },
    ...expecting(200),
  });
  await writer.POST("/inventory/batch", {
    body: {
      atomic: true,
      changes: [
        { petId: second.petId, delta: 1 },
        { petId: UNKNOWN_PET, delta: 1 },
      ],
    },
    ...expecting(409),
  });
  await writer.POST("/inventory/batch", {
    body: { dryRun: true, changes: [{ petId: second.petId, delta: 1 }] },
    ...expecting(200),
  });
  await writer.POST("/inventory/batch", {
    body: { changes: [{ petId: second.petId, delta: 0 }] },
    ...expecting(400),
  });
  await writer.POST("/inventory/batch", {
    body: { changes: [{ petId: second.petId, delta: 1 }] },
    headers: { "Content-Type": "text/plain" },
    ...expecting(415),
  });
  await anonymous.POST("/inventory/batch", {
    body: { changes: [{ petId: second.petId, delta: 1 }] },
    ...expecting(401),
  });
  await reader.POST("/inventory/batch", {
    body: { changes: [{ petId: second.petId, delta: 1 }] },
    ...expecting(403),
  });

  // Both writes while another process holds the database: 503 with Retry-After.
  await target.whileStoreLocked(async () => {
    await writer.PATCH("/inventory/{petId}", {
      params: { path: { petId: first.petId } },
      body: { quantity: 1 },
      ...expecting(503),
    });
    await writer.POST("/inventory/batch", {
      body: { changes: [{ petId: second.petId, delta: 1 }] },
      ...expecting(503),
    });
  });

  // getInventoryHistory
  await reader.GET("/inventory/{petId}/history", {
    params: { path: { petId: first.petId }, query: { limit: 5 } },
    ...expecting(200),
  });
  await writer.GET("/inventory/{petId}/history", {
    params: { path: { petId: first.petId }, query: { limit: 0 } },
    ...expecting(400),
  });
  await writer.GET("/inventory/{petId}/history", {
    params: { path: { petId: UNKNOWN_PET } },
    ...expecting(404),
  });
  await anonymous.GET("/inventory/{petId}/history", {
    params: { path: { petId: first.petId } },
    ...expecting(401),
  });

  // listInventoryChanges: the first page, the next one, and an empty one without waiting.
  const page = await reader.GET("/inventory/changes", {
    params: { query: { after: 0, limit: 2 } },
    ...expecting(200),
  });
  await reader.GET("/inventory/changes", {
    params: { query: { after: page.data?.next ?? 0 } },
    ...expecting(200),
  });
  await reader.GET("/inventory/changes", {
    params: { query: { after: 9_007_199_254_740_991, wait: 0 } },
    ...expecting(200),
  });
  await writer.GET("/inventory/changes", {
    params: { query: { limit: 0 } },
    ...expecting(400),
  });
  await writer.GET("/inventory/changes", {
    params: { query: { wait: 61 } },
    ...expecting(400),
  });
  await anonymous.GET("/inventory/changes", expecting(401));

  // getPetById (deprecated: Deprecation and Sunset on its answers)
  await reader.GET("/pets/{petId}", {
    params: { path: { petId: first.petId } },
    ...expecting(200),
  });
  await writer.GET("/pets/{petId}", { params: { path: { petId: 0 } }, ...expecting(400) });
  await writer.GET("/pets/{petId}", {
    params: { path: { petId: UNKNOWN_PET } },
    ...expecting(404),
  });
  await anonymous.GET("/pets/{petId}", {
    params: { path: { petId: first.petId } },
    ...expecting(401),
  });

  // listOrders
  await reader.GET("/store/orders", expecting(200));
  await anonymous.GET("/store/orders", expecting(401));

  return exchanges;
}
