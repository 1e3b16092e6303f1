import { Validator } from "@seriousme/openapi-schema-validator";
import type { LightMyRequestResponse } from "fastify";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { buildOpenApiDocument } from "../../src/api/openapi.js";
import { invalidFeedParameterExamples } from "../../src/api/openapi-feed-examples.js";
import { batchRequestSchema, inventoryUpdateSchema } from "../../src/api/schemas.js";
import { answerChecker, type Answer } from "../support/openapi-answers.js";
import { AUTH, READ_AUTH, createLockedTestApp, createTestApp, type TestApp } from "./fixture.js";

type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

let t: TestApp;
let served: OpenApiDocument;
beforeAll(async () => {
  t = await createTestApp();
  served = (await t.app.inject({ url: "/v1/openapi.json", headers: AUTH })).json();
});
afterAll(() => t.close());

/** An injected response as answerChecker() reads it: status, headers, body. */
function answerOf(response: LightMyRequestResponse): Answer {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined) headers.append(name, String(one));
    }
  }
  return { status: response.statusCode, headers, body: response.json() };
}

/** A POST /v1/inventory/batch for app.inject(). */
const batchCall = (body: object, headers: Record<string, string> = AUTH) =>
  ({ method: "POST", url: "/v1/inventory/batch", headers, payload: body }) as const;

/** The full paths of Fastify's printRoutes() tree, whose children continue their parent's path. */
function routedPaths(tree: string): string[] {
  const stack: { depth: number; path: string }[] = [];
  const paths: string[] = [];
  for (const line of tree.split("\n")) {
    const match = /^(.*?)(\/\S*) \(/.exec(line);
    if (!match) continue;
    const depth = match[1]?.length ?? 0;
    while (stack.length > 0 && (stack.at(-1)?.depth ?? 0) >= depth) stack.pop();
    const path = `${stack.at(-1)?.path ?? ""}${match[2] ?? ""}`;
    stack.push({ depth, path });
    paths.push(path);
  }
  return paths;
}

describe("GET /v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(served);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is the committed openapi/inventory.json that clients and the Prism suites use", () => {
    const committed: unknown = JSON.parse(
      readFileSync(join(import.meta.dirname, "..", "..", "openapi", "inventory.json"), "utf8"),
    );
    expect(served).toEqual(committed);
  });

  it("documents every operation the server routes, and routes every one it documents", () => {
    const paths = served.paths as Record<string, Record<string, unknown>>;
    const documented = Object.entries(paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} /v1${path}`),
    );
    for (const operation of documented) {
      const [method = "", url = ""] = operation.split(" ");
      const route = { method, url: url.replaceAll(/\{(\w+)\}/g, ":$1") };
      expect(t.app.hasRoute(route), operation).toBe(true);
    }
    // Every route under /v1 but the document itself is one of the documented paths.
    const documentedPaths = Object.keys(paths).map(
      (path) => `/v1${path.replaceAll(/\{(\w+)\}/g, ":$1")}`,
    );
    expect(
      routedPaths(t.app.printRoutes({ commonPrefix: false }))
        .filter((path) => path.startsWith("/v1/") && path !== "/v1/openapi.json")
        .sort(),
    ).toEqual(documentedPaths.sort());
  });

  it("declares the very schema the PATCH route validates its body with", () => {
    expect(served.components.schemas.InventoryUpdate).toEqual(
      JSON.parse(JSON.stringify(inventoryUpdateSchema)),
    );
    const patch = (served.paths as Record<string, Record<string, unknown>>)["/inventory/{petId}"]
      ?.patch as { requestBody: { content: Record<string, { schema: unknown }> } };
    expect(patch.requestBody.content["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/InventoryUpdate",
    });
  });

  it("declares, as BatchRequest, the schema the batch reader is checked against", () => {
    const schemas = served.components.schemas as Record<string, object>;
    // BatchRequest names its two kinds of change; resolved, it is batchRequestSchema.
    const resolved = JSON.parse(JSON.stringify(schemas.BatchRequest), (_key, value: unknown) => {
      const target = (value as { $ref?: unknown } | null)?.$ref;
      return typeof target === "string"
        ? schemas[target.replace("#/components/schemas/", "")]
        : value;
    }) as unknown;
    expect(resolved).toEqual(JSON.parse(JSON.stringify(batchRequestSchema)));
    const post = (served.paths as Record<string, Record<string, unknown>>)["/inventory/batch"]
      ?.post as { requestBody: { content: Record<string, { schema: unknown }> } };
    expect(post.requestBody.content["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/BatchRequest",
    });
  });

  it("declares the bearer scheme, the experimental PATCH and the deprecated lookup", () => {
    expect(served.components.securitySchemes.bearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    expect(served.paths["/inventory/{petId}"].patch["x-stability"]).toBe("experimental");
    expect(served.paths["/pets/{petId}"].get.deprecated).toBe(true);
    expect(served.info.version).toBe("1.0.0");
  });

  it("describes what the server answers, for every documented status", async () => {
    const check = answerChecker(served);
    const cases = [
      ["/inventory", "get", { url: "/v1/inventory", headers: AUTH }, 200],
      ["/inventory", "get", { url: "/v1/inventory" }, 401],
      [
        "/inventory/{petId}",
        "patch",
        { method: "PATCH", url: "/v1/inventory/1", headers: AUTH, payload: { quantity: 4 } },
        200,
      ],
      [
        "/inventory/{petId}",
        "patch",
        { method: "PATCH", url: "/v1/inventory/1", headers: AUTH, payload: { quantity: -4 } },
        400,
      ],
      [
        "/inventory/{petId}",
        "patch",
        { method: "PATCH", url: "/v1/inventory/77", headers: AUTH, payload: { quantity: 4 } },
        404,
      ],
      ["/inventory/{petId}", "patch", { method: "PATCH", url: "/v1/inventory/1" }, 401],
      [
        "/inventory/{petId}",
        "patch",
        { method: "PATCH", url: "/v1/inventory/1", headers: READ_AUTH, payload: { quantity: 4 } },
        403,
      ],
      ["/inventory/{petId}", "get", { url: "/v1/inventory/1", headers: AUTH }, 200],
      ["/inventory/{petId}", "get", { url: "/v1/inventory/x", headers: AUTH }, 400],
      ["/inventory/{petId}", "get", { url: "/v1/inventory/1" }, 401],
      ["/inventory/{petId}", "get", { url: "/v1/inventory/77", headers: AUTH }, 404],
      [
        "/inventory/{petId}",
        "patch",
        {
          method: "PATCH",
          url: "/v1/inventory/1",
          headers: { ...AUTH, "if-match": "7" },
          payload: { quantity: 4 },
        },
        400,
      ],
      [
        "/inventory/{petId}",
        "patch",
        {
          method: "PATCH",
          url: "/v1/inventory/1",
          headers: { ...AUTH, "if-match": '"999"' },
          payload: { quantity: 4 },
        },
        412,
      ],
      [
        "/inventory/{petId}",
        "patch",
        {
          method: "PATCH",
          url: "/v1/inventory/1",
          headers: { ...AUTH, "idempotency-key": "doc" },
          payload: { quantity: 5 },
        },
        200,
      ],
      [
        "/inventory/{petId}",
        "patch",
        {
          method: "PATCH",
          url: "/v1/inventory/1",
          headers: { ...AUTH, "idempotency-key": "doc" },
          payload: { quantity: 6 },
        },
        422,
      ],
      ["/pets/{petId}", "get", { url: "/v1/pets/2", headers: AUTH }, 200],
      ["/pets/{petId}", "get", { url: "/v1/pets/x", headers: AUTH }, 400],
      ["/pets/{petId}", "get", { url: "/v1/pets/77", headers: AUTH }, 404],
      ["/store/orders", "get", { url: "/v1/store/orders", headers: AUTH }, 200],
      // A sale with a ref, its history record (which carries the ref), and the sale again.
      [
        "/inventory/batch",
        "post",
        batchCall({ changes: [{ petId: 1, delta: -1, ref: "a" }] }),
        200,
      ],
      ["/inventory/{petId}/history", "get", { url: "/v1/inventory/1/history", headers: AUTH }, 200],
      [
        "/inventory/batch",
        "post",
        batchCall({ changes: [{ petId: 1, delta: -1, ref: "a" }] }),
        200,
      ],
      // Counts: applied, unchanged and not found; an atomic one rejected; one as of a seq to come.
      [
        "/inventory/batch",
        "post",
        batchCall({
          changes: [
            { petId: 1, count: 9, asOf: 1, ref: "count:doc:1" },
            { petId: 2, count: 0, asOf: 4 },
            { petId: 77, count: 1, asOf: 1 },
          ],
        }),
        200,
      ],
      [
        "/inventory/batch",
        "post",
        batchCall({
          atomic: true,
          changes: [
            { petId: 2, count: 1, asOf: 1 },
            { petId: 77, count: 1, asOf: 1 },
          ],
        }),
        409,
      ],
      [
        "/inventory/batch",
        "post",
        batchCall({ changes: [{ petId: 1, count: 1, asOf: 9_000_000 }] }),
        400,
      ],
      ["/inventory/batch", "post", batchCall({ changes: [{ petId: 1, delta: 0 }] }), 400],
      ["/inventory/batch", "post", batchCall({ changes: [{ petId: 1, delta: 1 }] }, {}), 401],
      [
        "/inventory/batch",
        "post",
        batchCall({ changes: [{ petId: 1, delta: 1 }] }, READ_AUTH),
        403,
      ],
      [
        "/inventory/batch",
        "post",
        batchCall({
          atomic: true,
          changes: [
            { petId: 1, delta: 1 },
            { petId: 77, delta: 1 },
          ],
        }),
        409,
      ],
      [
        "/inventory/batch",
        "post",
        batchCall({ changes: [{ petId: 1, delta: 1 }] }, { ...AUTH, "content-type": "text/plain" }),
        415,
      ],
      [
        "/inventory/batch",
        "post",
        batchCall({ changes: [{ petId: 1, delta: 1 }] }, { ...AUTH, "idempotency-key": "batch" }),
        200,
      ],
      [
        "/inventory/batch",
        "post",
        batchCall({ changes: [{ petId: 1, delta: 2 }] }, { ...AUTH, "idempotency-key": "batch" }),
        422,
      ],
      // The change feed: every record (the batches' above among them), a page, an empty page.
      ["/inventory/changes", "get", { url: "/v1/inventory/changes", headers: AUTH }, 200],
      [
        "/inventory/changes",
        "get",
        { url: "/v1/inventory/changes?after=2&limit=2", headers: READ_AUTH },
        200,
      ],
      [
        "/inventory/changes",
        "get",
        { url: "/v1/inventory/changes?after=9223372036854775807&wait=0", headers: AUTH },
        200,
      ],
      ["/inventory/changes", "get", { url: "/v1/inventory/changes?after=-1", headers: AUTH }, 400],
      ["/inventory/changes", "get", { url: "/v1/inventory/changes?limit=0", headers: AUTH }, 400],
      ["/inventory/changes", "get", { url: "/v1/inventory/changes?wait=61", headers: AUTH }, 400],
      ["/inventory/changes", "get", { url: "/v1/inventory/changes" }, 401],
    ] as const;
    for (const [path, method, request, status] of cases) {
      const response = await t.app.inject(request);
      expect(response.statusCode, `${method} ${path}`).toBe(status);
      expect(check(path, method, answerOf(response)), `${method} ${path} ${status}`).toEqual([]);
    }
  });

  it("gives the feed's 400 examples as the server words them", async () => {
    const queries = {
      invalidAfter: "after=-1",
      invalidFeedLimit: "limit=5000",
      invalidWait: "wait=120",
    };
    for (const [name, example] of Object.entries(invalidFeedParameterExamples)) {
      const query = queries[name as keyof typeof queries];
      const response = await t.app.inject({ url: `/v1/inventory/changes?${query}`, headers: AUTH });
      expect(response.json(), name).toEqual(example.value);
    }
  });

  it("documents the ETag the server sends with the pattern it follows, and the write headers", async () => {
    const get = served.paths["/inventory/{petId}"].get.responses["200"];
    const pattern = new RegExp(get.headers.ETag.schema.pattern);
    const response = await t.app.inject({ url: "/v1/inventory/2", headers: AUTH });
    expect(response.headers.etag).toMatch(pattern);
    const patch = served.paths["/inventory/{petId}"].patch;
    expect(patch.responses["412"].headers.ETag.required).toBe(true);
    expect(patch.responses["200"].headers["Idempotent-Replayed"].schema).toEqual({
      type: "string",
      enum: ["true"],
    });
    const parameter = (name: string) =>
      patch.parameters.find((candidate) => candidate.name === name)?.schema as
        { pattern: string; minLength?: number; maxLength?: number } | undefined;
    const ifMatch = new RegExp(parameter("If-Match")?.pattern ?? "^$", "u");
    for (const accepted of ["*", '"7"', '"3", "7"', 'W/"7", "8"', '"4,5"', '"\u00fc"']) {
      expect(accepted).toMatch(ifMatch);
    }
    for (const refused of ["7", "garbage", '*, "7"', "*,", ", *"]) {
      expect(refused).not.toMatch(ifMatch);
    }
    expect(parameter("Idempotency-Key")).toMatchObject({ minLength: 1, maxLength: 255 });
    // The reason's limits, on both writes (test/api/openapi-header-patterns.test.ts: exactly
    // the server's rule, on generated values).
    const batch = served.paths["/inventory/batch"].post;
    for (const parameters of [patch.parameters, batch.parameters]) {
      const reason = parameters.find((candidate) => candidate.name === "X-Change-Reason");
      expect(reason?.schema).toMatchObject({ minLength: 1, maxLength: 800 });
      expect(reason?.schema).toHaveProperty("pattern");
    }
  });

  it("documents Inventory-Seq on every inventory answer with the pattern the server's follow", async () => {
    type Headers = Record<string, { required: boolean; schema: { pattern: string } }>;
    const paths = served.paths as unknown as Record<
      string,
      Record<string, { responses: Record<string, { headers?: Headers }> }>
    >;
    const seqHeader = (path: string, method: string, status: string) =>
      paths[path]?.[method]?.responses[status]?.headers?.["Inventory-Seq"];
    // Every answer of a read has it; a write's but its replay.
    expect(
      [
        seqHeader("/inventory", "get", "200"),
        seqHeader("/inventory/{petId}", "get", "200"),
        seqHeader("/inventory/{petId}", "patch", "200"),
        seqHeader("/inventory/{petId}", "patch", "412"),
        seqHeader("/inventory/batch", "post", "200"),
        seqHeader("/inventory/batch", "post", "409"),
      ].map((header) => header?.required),
    ).toEqual([true, true, false, false, false, false]);
    const pattern = new RegExp(seqHeader("/inventory", "get", "200")?.schema.pattern ?? "^$");
    const answers = [
      await t.app.inject({ url: "/v1/inventory", headers: AUTH }),
      await t.app.inject({ url: "/v1/inventory/2", headers: AUTH }),
      await t.app.inject({
        method: "PATCH",
        url: "/v1/inventory/2",
        headers: AUTH,
        payload: { quantity: 3 },
      }),
      await t.app.inject(batchCall({ changes: [{ petId: 2, delta: 1 }] })),
    ];
    for (const answer of answers) expect(answer.headers["inventory-seq"]).toMatch(pattern);
    // The seq of the write's own change, then of the read that follows it.
    const [, , patched, batched] = answers.map((answer) => answer.headers["inventory-seq"]);
    expect(BigInt(String(batched))).toBe(BigInt(String(patched)) + 1n);
    expect(
      (await t.app.inject({ url: "/v1/inventory", headers: AUTH })).headers["inventory-seq"],
    ).toBe(batched);
  });

  it("describes the 503 a PATCH gets while another process holds the database's lock", async () => {
    const locked = await createLockedTestApp(20);
    const response = await locked.app.inject({
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: AUTH,
      payload: { quantity: 4 },
    });
    await locked.close();
    expect(response.statusCode).toBe(503);
    expect(answerChecker(served)("/inventory/{petId}", "patch", answerOf(response))).toEqual([]);
    const patch = served.paths["/inventory/{petId}"].patch.responses["503"];
    expect(patch.headers["Retry-After"].required).toBe(true);
    expect(response.headers["retry-after"]).toMatch(
      new RegExp(patch.headers["Retry-After"].schema.pattern),
    );
    // A read meets a lock only in rare states: its 503 falls under `default` (the Error body).
    expect(served.paths["/inventory"].get.responses.default.description).toContain("503");
  });
});
