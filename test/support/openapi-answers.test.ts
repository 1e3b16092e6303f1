/** The answer checker finds what breaks the document (else the suites that use it prove nothing). */
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../src/api/openapi.js";
import { answerChecker } from "./openapi-answers.js";

const check = answerChecker(buildOpenApiDocument());
const json = (headers: Record<string, string> = {}) =>
  new Headers({ "content-type": "application/json; charset=utf-8", ...headers });

describe("answerChecker", () => {
  it("accepts an answer as the document declares it", () => {
    const answer = {
      status: 200,
      headers: json({ etag: '"1"', "inventory-seq": "1" }),
      body: { petId: 1, quantity: 1, status: "available" },
    };
    expect(check("/inventory/{petId}", "get", answer)).toEqual([]);
  });

  it("finds a body, a header, a status and a media type the document does not declare", () => {
    const item = { petId: 1, quantity: 1, status: "available" };
    expect(
      check("/inventory", "get", {
        status: 200,
        headers: json({ "inventory-seq": "1" }),
        body: [{ ...item, petId: "1" }],
      }),
    ).toEqual(["body/0/petId must be integer"]);
    expect(
      check("/inventory/{petId}", "get", {
        status: 200,
        headers: json({ etag: "1", "inventory-seq": "01" }),
        body: item,
      }),
    ).toEqual([
      'header ETag must match pattern "^"(0|[1-9][0-9]*)"$"',
      expect.stringMatching(/^header Inventory-Seq must match pattern/),
    ]);
    expect(
      check("/inventory/{petId}", "patch", {
        status: 412,
        headers: json(),
        body: { code: "precondition_failed", message: "no", status: 400 },
      }),
    ).toEqual(["header ETag is missing", "body/status must be equal to constant"]);
    expect(
      check("/pets/{petId}", "get", {
        status: 404,
        headers: new Headers({ "content-type": "text/plain", deprecation: "@1", sunset: "x" }),
        body: { code: "pet_not_found", message: "no", status: 404 },
      }),
    ).toEqual([
      expect.stringMatching(/^header Sunset must match pattern/),
      "content-type is text/plain",
    ]);
    expect(check("/store/orders", "delete", { status: 200, headers: json(), body: [] })).toEqual([
      "the document has no delete /store/orders",
    ]);
  });
});
