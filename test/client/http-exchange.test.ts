/**
 * Direct calls with Node's own HTTP client against a real local server, faults included
 * (a connection closed mid-body, a server that never answers, 503 then 200).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { encodeChangeReason } from "../../src/api/change-reason.js";
import { decodeInventoryItem } from "../../src/client/decode.js";
import { createHttpExchange, type HttpExchange } from "../../src/client/http-exchange.js";
import { createTransport } from "../../src/client/transport.js";
import { NetworkError } from "../../src/client/errors.js";

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

let server: Server | undefined;
let connections: HttpExchange | undefined;

afterEach(async () => {
  await connections?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
  connections = undefined;
});

/** Starts a server answering with `handler` (after reading the whole request body). */
async function serve(handler: Handler): Promise<string> {
  const listening = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      handler(request, Buffer.concat(chunks).toString("utf8"), response);
    });
  });
  server = listening;
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
}

function transport(origin: string, timeoutMs = 1000) {
  connections = createHttpExchange();
  return createTransport({
    target: {
      env: "production",
      baseUrl: `${origin}/v1`,
      baseUrlSource: "--base-url",
      apiKey: "k-9f3e71",
      apiKeySource: "PETSTORE_API_KEY",
    },
    exchange: connections.exchange,
    timeoutMs,
    retry: { retries: 2, sleep: () => Promise.resolve(), random: () => 0.5 },
    now: () => 0,
    userAgent: "petstore-test",
  });
}

const getItem = {
  operation: "getInventoryItem" as const,
  method: "GET" as const,
  path: "/inventory/42",
  decode: (body: unknown) => decodeInventoryItem(body),
};

describe("http exchange", () => {
  it("sends the method, headers and body, and reads status, headers and body back", async () => {
    const seen: { method?: string; headers?: IncomingMessage["headers"]; body?: string } = {};
    const origin = await serve((request, body, response) => {
      Object.assign(seen, { method: request.method, headers: request.headers, body });
      response.writeHead(200, { "content-type": "application/json", etag: '"7"' });
      response.end('{"petId":42,"quantity":7,"status":"available"}');
    });
    connections = createHttpExchange();
    const answer = await connections.exchange(`${origin}/v1/inventory/42`, {
      method: "PATCH",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: '{"quantity":7}',
      signal: AbortSignal.timeout(1000),
      timeoutMs: 1000,
    });
    expect(seen).toMatchObject({
      method: "PATCH",
      headers: { authorization: "Bearer k", "content-length": "14" },
      body: '{"quantity":7}',
    });
    expect(answer).toMatchObject({
      status: 200,
      headers: { etag: '"7"' },
      text: '{"petId":42,"quantity":7,"status":"available"}',
    });
  });

  it("sends a header of bytes (ISO-8859-1 characters) byte for byte beside a UTF-8 body", async () => {
    let received: Buffer | undefined;
    let body: string | undefined;
    const origin = await serve((request, text, response) => {
      received = Buffer.from(String(request.headers["x-change-reason"]), "latin1");
      body = text;
      response.end();
    });
    connections = createHttpExchange();
    const reason = "Inventur März 🐈";
    await connections.exchange(`${origin}/v1/inventory/42`, {
      method: "PATCH",
      headers: { "x-change-reason": encodeChangeReason(reason) },
      body: '{"note":"ü"}',
      signal: AbortSignal.timeout(1000),
      timeoutMs: 1000,
    });
    expect(received).toEqual(Buffer.from(reason, "utf8"));
    expect(body).toBe('{"note":"ü"}');
  });

  it("retries a 503 and returns the 200 that follows", async () => {
    let calls = 0;
    const origin = await serve((_request, _body, response) => {
      calls += 1;
      if (calls === 1) {
        response.writeHead(503, { "content-type": "application/json" });
        response.end('{"code":"unavailable","message":"try again"}');
        return;
      }
      response.writeHead(200, { "content-type": "application/json" });
      response.end('{"petId":42,"quantity":7,"status":"available"}');
    });
    await expect(transport(origin).send(getItem)).resolves.toEqual({
      petId: 42n,
      quantity: 7,
      status: "available",
    });
    expect(calls).toBe(2);
  });

  it("reports a connection closed before the body's end as reset, after retrying", async () => {
    let calls = 0;
    const origin = await serve((_request, _body, response) => {
      calls += 1;
      response.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      response.write('{"petId":42,');
      setImmediate(() => response.socket?.destroy());
    });
    const error = await transport(origin)
      .send(getItem)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ failure: "unreachable", code: "ECONNRESET", attempts: 3 });
    expect(calls).toBe(3);
  });

  it("ends an attempt the server never answers at its deadline", async () => {
    const origin = await serve(() => undefined);
    const error = await transport(origin, 100)
      .send(getItem)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ failure: "timeout" });
    expect((error as NetworkError).message).toContain("no answer within 100 ms");
  });

  it("reports a refused connection with its code", async () => {
    const origin = await serve(() => undefined);
    await new Promise((resolve) => server?.close(resolve));
    const error = await transport(origin)
      .send(getItem)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ failure: "unreachable", code: "ECONNREFUSED" });
  });
});
