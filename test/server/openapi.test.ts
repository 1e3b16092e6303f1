import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../src/api/openapi.js";
import { AUTH, createTestApp, type TestApp } from "./fixture.js";

interface Operation {
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
}
type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

let t: TestApp;
let served: OpenApiDocument;
beforeAll(async () => {
  t = await createTestApp();
  served = (await t.app.inject({ url: "/v1/openapi.json", headers: AUTH })).json();
});
afterAll(() => t.close());

/** Checks a response body against the schema the document declares for its operation and status. */
function responseValidator(document: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false });
  ajv.addFormat("int64", true);
  ajv.addFormat("date-time", true);
  ajv.addSchema({ $id: "doc", components: document.components });
  return (path: string, method: string, status: number, body: unknown) => {
    const paths = document.paths as Record<string, Record<string, Operation>>;
    const operation = paths[path]?.[method];
    const response = operation?.responses[String(status)] ?? operation?.responses.default;
    const schema = response?.content?.["application/json"]?.schema;
    if (!schema) throw new Error(`no schema for ${method} ${path} ${status}`);
    const rewritten = JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'),
    ) as object;
    const validate = ajv.compile(rewritten);
    return validate(body) ? [] : (validate.errors ?? []);
  };
}

describe("GET /v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(served);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("is the document the server is built from", () => {
    expect(served).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
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
    const check = responseValidator(served);
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
      ["/pets/{petId}", "get", { url: "/v1/pets/2", headers: AUTH }, 200],
      ["/pets/{petId}", "get", { url: "/v1/pets/x", headers: AUTH }, 400],
      ["/pets/{petId}", "get", { url: "/v1/pets/77", headers: AUTH }, 404],
      ["/store/orders", "get", { url: "/v1/store/orders", headers: AUTH }, 200],
    ] as const;
    for (const [path, method, request, status] of cases) {
      const response = await t.app.inject(request);
      expect(response.statusCode, `${method} ${path}`).toBe(status);
      expect(check(path, method, status, response.json()), `${method} ${path} ${status}`).toEqual(
        [],
      );
    }
  });
});
