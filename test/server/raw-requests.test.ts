/**
 * Requests that never reach a route, sent as raw bytes to a listening app: every answer is
 * still the `{code, message, status}` Error body, and a connection the server gives up on is
 * closed with `Connection: close`.
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY, createTestApp, type TestApp } from "./fixture.js";
import { rawRequest, type RawResponse } from "./raw-http.js";

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

const auth = `Authorization: Bearer ${API_KEY}\r\n`;
const patchBody = '{"quantity":5}';

function expectEnvelope(response: RawResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["code", "message", "status"]);
  expect(body).toMatchObject({ code, status });
  expect(body.message).not.toBe("");
}

async function quantityOf(petId: bigint): Promise<number | undefined> {
  return (await t.store.listInventory()).items.find((item) => item.petId === petId)?.quantity;
}

describe("requests Node's HTTP parser rejects", () => {
  it.each([
    [
      "a lowercase method",
      `patch /v1/inventory/1 HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${patchBody.length}\r\n\r\n${patchBody}`,
    ],
    ["an unknown method", "FROB /v1/inventory HTTP/1.1\r\nHost: x\r\n\r\n"],
    [
      "bad chunked encoding",
      `PATCH /v1/inventory/1 HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${patchBody}\r\n0\r\n\r\n`,
    ],
    [
      "Content-Length together with Transfer-Encoding",
      `PATCH /v1/inventory/1 HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${patchBody.length}\r\nTransfer-Encoding: chunked\r\n\r\n${patchBody}`,
    ],
    ["a malformed header line", "GET /v1/inventory HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n"],
    [
      "raw non-ASCII in the URL",
      Buffer.from("GET /v1/inventory/\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n"),
    ],
  ])("%s: 400 malformed_request, and the connection closes", async (_what, request) => {
    const response = await rawRequest(port, request);
    expectEnvelope(response, 400, "malformed_request");
    expect(response.headers.connection).toBe("close");
    expect(response.closed).toBe(true);
    expect(await quantityOf(1n)).toBe(3);
  });

  it("headers over 16 KiB: 431 headers_too_large, and the connection closes", async () => {
    const response = await rawRequest(
      port,
      `GET /v1/inventory HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(17 * 1024)}\r\n\r\n`,
    );
    expectEnvelope(response, 431, "headers_too_large");
    expect(response.headers.connection).toBe("close");
    expect(response.closed).toBe(true);
  });
});

describe("requests the router or Node would answer in another shape", () => {
  it("bad percent-encoding in the path is 400 bad_request", async () => {
    const response = await rawRequest(port, "GET /%ZZ HTTP/1.1\r\nHost: x\r\n\r\n");
    expectEnvelope(response, 400, "bad_request");
  });

  it.each([100, 101, 1000])("a petId of %i digits is 400 invalid_pet_id", async (digits) => {
    const response = await rawRequest(
      port,
      `GET /v1/pets/${"9".repeat(digits)} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    );
    expectEnvelope(response, 400, "invalid_pet_id");
  });

  it("a long petId without a key is 401, as for any other id", async () => {
    const response = await rawRequest(
      port,
      `PATCH /v1/inventory/${"9".repeat(101)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${patchBody.length}\r\n\r\n${patchBody}`,
    );
    expectEnvelope(response, 401, "unauthorized");
  });

  it("an Expect other than 100-continue is 417 expectation_failed, and changes nothing", async () => {
    const response = await rawRequest(
      port,
      `PATCH /v1/inventory/1 HTTP/1.1\r\nHost: x\r\n${auth}Expect: foo\r\nContent-Type: application/json\r\nContent-Length: ${patchBody.length}\r\n\r\n${patchBody}`,
    );
    expectEnvelope(response, 417, "expectation_failed");
    expect(response.headers.connection).toBe("close");
    expect(response.closed).toBe(true);
    expect(await quantityOf(1n)).toBe(3);
  });

  it("an HTTP/1.1 request without Host is 400 bad_request, and changes nothing", async () => {
    const response = await rawRequest(
      port,
      `PATCH /v1/inventory/1 HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${patchBody.length}\r\n\r\n${patchBody}`,
    );
    expectEnvelope(response, 400, "bad_request");
    expect((JSON.parse(response.body) as { message: string }).message).toContain("Host");
    expect(await quantityOf(1n)).toBe(3);
  });

  it("an HTTP/1.0 request without Host is served", async () => {
    const response = await rawRequest(port, `GET /v1/inventory HTTP/1.0\r\n${auth}\r\n`);
    expect(response.status).toBe(200);
  });
});

describe("methods a path does not support", () => {
  it.each([
    ["OPTIONS", "/v1/inventory", "GET, HEAD"],
    ["TRACE", "/v1/inventory/1", "GET, PATCH, HEAD"],
    ["PROPFIND", "/v1/pets/1", "GET, HEAD"],
    ["DELETE", "/v1/inventory/1", "GET, PATCH, HEAD"],
    ["MKCOL", "/v1/store/orders", "GET, HEAD"],
    ["OPTIONS", "/healthz", "GET, HEAD"],
  ])("%s %s is 405 with Allow: %s", async (method, path, allow) => {
    const response = await rawRequest(port, `${method} ${path} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`);
    expect(response.headers.allow).toBe(allow);
    expectEnvelope(response, 405, "method_not_allowed");
  });

  it("CONNECT is 405 method_not_allowed, and the connection closes", async () => {
    const response = await rawRequest(port, "CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\n\r\n");
    expectEnvelope(response, 405, "method_not_allowed");
    expect(response.closed).toBe(true);
  });

  // RFC 9110, 15.5.6: every 405 carries Allow. A `host:port` is no resource of this server,
  // so it allows no method (an empty Allow, 10.2.1); a path of the server allows its own.
  it.each([
    ["127.0.0.1:22", ""],
    ["/v1/inventory", "GET, HEAD"],
    ["/v1/inventory/1?x=1", "GET, PATCH, HEAD"],
    ["/v1/inventory/1/history", "GET, HEAD"],
    ["/healthz", "GET, HEAD"],
    ["/v1/nowhere", ""],
  ])("CONNECT %s is 405 with Allow: %j, over a real socket", async (target, allow) => {
    const response = await rawRequest(port, `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(response.status).toBe(405);
    expect(response.headers).toHaveProperty("allow", allow);
    expectEnvelope(response, 405, "method_not_allowed");
    expect(JSON.parse(response.body)).toEqual({
      code: "method_not_allowed",
      message: `CONNECT is not supported: this is no proxy${allow === "" ? "" : `; use ${allow}`}`,
      status: 405,
    });
    expect(response.headers.connection).toBe("close");
    expect(response.closed).toBe(true);
  });

  it("an unknown path is still 404 for any method", async () => {
    const response = await rawRequest(
      port,
      `PROPFIND /v1/nowhere HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    );
    expectEnvelope(response, 404, "not_found");
  });
});
