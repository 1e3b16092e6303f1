/**
 * Closing under load, over real connections to a listening app: requests in flight finish
 * (and are kept), their answers close the connection, idle connections close at once, and a
 * request that arrives meanwhile gets the 503 Error body with Retry-After.
 */
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import { API_KEY, createTestApp } from "./fixture.js";
import { eventually } from "../support/eventually.js";
import { parseRawResponse, rawConnection } from "./raw-http.js";

const auth = `Authorization: Bearer ${API_KEY}\r\n`;

describe("closing the server", () => {
  it("finishes requests in flight with Connection: close, closes idle ones at once, refuses new ones with 503", async () => {
    const t = await createTestApp();
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (t.app.server.address() as AddressInfo).port;
    const body = '{"quantity":9}';

    // In flight: a PATCH whose body has not arrived yet.
    const inFlight = rawConnection(port);
    inFlight.socket.write(
      `PATCH /v1/inventory/1 HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    // Idle: kept alive after an answered request.
    const idle = rawConnection(port);
    idle.socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    // Arriving: answered once, then half of a second request's head.
    const arriving = rawConnection(port);
    arriving.socket.write(
      `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/inventory HTTP/1.1\r\nHost: x\r\n`,
    );
    await eventually(
      "the idle and the arriving connections' first answers",
      () => idle.received().includes("ok") && arriving.received().includes("ok"),
    );

    let closed = false;
    const closing = t.app.close().then(() => (closed = true));
    await idle.closed;
    expect(closed).toBe(false);

    arriving.socket.write(`${auth}\r\n`);
    await arriving.closed;
    const refused = parseRawResponse(
      arriving.received().slice(arriving.received().indexOf("HTTP/1.1", 1)),
      true,
    );
    expect(refused?.status).toBe(503);
    expect(refused?.headers["retry-after"]).toBe("1");
    expect(refused?.headers.connection).toBe("close");
    expect(JSON.parse(refused?.body ?? "")).toEqual({
      code: "unavailable",
      message: "the server is shutting down; retry",
      status: 503,
    });

    inFlight.socket.write(body);
    await inFlight.closed;
    const answered = parseRawResponse(inFlight.received(), true);
    expect(answered?.status).toBe(200);
    expect(answered?.headers.connection).toBe("close");
    expect(JSON.parse(answered?.body ?? "")).toEqual({
      petId: 1,
      quantity: 9,
      status: "available",
    });

    await closing;
    // The finished write is on disk.
    const reopened = openSqliteStore(t.dbPath);
    expect((await reopened.listInventory()).items[0]?.quantity).toBe(9);
    await reopened.close();
    await t.close();
  });
});
