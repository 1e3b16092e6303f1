/**
 * The probes: /livez (no I/O), /readyz and /healthz (store within 1 s, keys loaded, not
 * shutting down), each without a key, a 503 in the Error envelope naming the failed check.
 */
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { READINESS_STORE_TIMEOUT_MS, storeAnswers } from "../../src/server/routes/health.js";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import type { Store } from "../../src/server/store/store.js";
import { StoreUnavailableError } from "../../src/server/store/store-unavailable-error.js";
import { eventually } from "../support/eventually.js";
import { ManualTimer } from "../support/manual-timer.js";
import { hasSettled } from "../support/settled.js";
import { API_KEY, createTestApp, tempDir } from "./fixture.js";
import { parseRawResponse, rawConnection } from "./raw-http.js";

/** A ping that answers only when the test says: a store held up (by a lock, a slow disk). */
function heldPing(): { ping: () => Promise<void>; answer(): void } {
  let answer: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  return {
    ping: () => answered,
    answer: () => {
      answer();
    },
  };
}

/** A real SQLite store whose ping answers as `ping` says: the database's failures, staged. */
function storeWithPing(ping: () => Promise<void>): { store: Store; remove(): void } {
  const temp = tempDir();
  const store = openSqliteStore(`${temp.dir}/probe.db`);
  store.ping = ping;
  return { store, remove: temp.remove };
}

describe("the probes", () => {
  it("answers /livez, /readyz and /healthz 200 without a key", async () => {
    const t = await createTestApp();
    for (const url of ["/livez", "/readyz", "/healthz"]) {
      const response = await t.app.inject({ url });
      expect(response.statusCode, url).toBe(200);
      expect(response.json(), url).toEqual({ status: "ok" });
    }
    await t.close();
  });

  it("answers another method on a probe 405 with Allow", async () => {
    const t = await createTestApp();
    for (const url of ["/livez", "/readyz", "/healthz"]) {
      const response = await t.app.inject({ method: "POST", url });
      expect(response.statusCode, url).toBe(405);
      expect(response.headers.allow, url).toContain("GET");
      expect(response.json<{ code: string }>().code, url).toBe("method_not_allowed");
    }
    await t.close();
  });

  it("is not ready while the database is unreachable, naming the store, and /livez stays 200", async () => {
    const staged = storeWithPing(() => Promise.reject(new StoreUnavailableError("down")));
    const t = await createTestApp({ store: staged.store });
    for (const url of ["/readyz", "/healthz"]) {
      const response = await t.app.inject({ url });
      expect(response.statusCode, url).toBe(503);
      expect(response.headers["retry-after"]).toBe("1");
      expect(response.json(), url).toEqual({
        code: "unavailable",
        message: "not ready (store): the database is unreachable",
        status: 503,
      });
    }
    expect((await t.app.inject({ url: "/livez" })).statusCode).toBe(200);
    await t.close();
    staged.remove();
  });

  it("is not ready when the store takes longer than 1 s, and answers at that second", async () => {
    const held = heldPing();
    const staged = storeWithPing(held.ping);
    const timer = new ManualTimer();
    const t = await createTestApp({ store: staged.store, timer });
    const probe = t.app.inject({ url: "/readyz" });
    await timer.paused("the probe to wait for the store");
    expect(timer.asked).toEqual([1000]);
    timer.advance(999);
    expect(await hasSettled(probe)).toBe(false);
    timer.advance(1);
    const response = await probe;
    expect(response.statusCode).toBe(503);
    expect(response.json<{ message: string }>().message).toBe(
      "not ready (store): the store did not answer within 1000 ms",
    );
    held.answer();
    await t.close();
    staged.remove();
  });

  it("is ready when the store answers just inside the second", async () => {
    const held = heldPing();
    const staged = storeWithPing(held.ping);
    const timer = new ManualTimer();
    const t = await createTestApp({ store: staged.store, timer });
    const probe = t.app.inject({ url: "/readyz" });
    await timer.paused("the probe to wait for the store");
    timer.advance(READINESS_STORE_TIMEOUT_MS - 1);
    held.answer();
    const response = await probe;
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: "ok" });
    // The probe's pause ended with it: nothing is left waiting on the clock.
    expect(timer.pausing).toBe(0);
    await t.close();
    staged.remove();
  });

  it("storeAnswers says true, unreachable or slow", async () => {
    const timer = new ManualTimer();
    const fine = storeWithPing(() => Promise.resolve());
    expect(await storeAnswers(fine.store, 50, timer)).toBe(true);
    fine.store.ping = () => Promise.reject(new Error("gone"));
    expect(await storeAnswers(fine.store, 50, timer)).toBe("unreachable");
    const held = heldPing();
    fine.store.ping = held.ping;
    const slow = storeAnswers(fine.store, 50, timer);
    timer.advance(50);
    expect(await slow).toBe("slow");
    held.answer();
    expect(timer.asked).toEqual([50, 50, 50]);
    expect(timer.pausing).toBe(0);
    await fine.store.close();
    fine.remove();
  });

  it("turns /readyz 503 as soon as closing begins, while a request in flight finishes; /livez stays 200", async () => {
    const t = await createTestApp();
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    const port = (t.app.server.address() as AddressInfo).port;
    const body = '{"quantity":4}';
    // In flight: a PATCH whose body has not arrived, so closing waits for it.
    const inFlight = rawConnection(port);
    inFlight.socket.write(
      `PATCH /v1/inventory/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${API_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    // Two connections that answered once and hold half of their next request's head.
    const readiness = rawConnection(port);
    const liveness = rawConnection(port);
    for (const [connection, next] of [
      [readiness, "/readyz"],
      [liveness, "/livez"],
    ] as const) {
      connection.socket.write(`GET /readyz HTTP/1.1\r\nHost: x\r\n\r\nGET ${next} HTTP/1.1\r\n`);
    }
    await eventually(
      "both probes' first answers",
      () => readiness.received().includes("ok") && liveness.received().includes("ok"),
    );

    const closing = t.app.close();
    readiness.socket.write("Host: x\r\n\r\n");
    liveness.socket.write("Host: x\r\n\r\n");
    await eventually("/readyz's second answer", () => countAnswers(readiness.received()) === 2);
    await eventually("/livez's second answer", () => countAnswers(liveness.received()) === 2);
    const notReady = secondAnswer(readiness.received());
    expect(notReady?.status).toBe(503);
    expect(JSON.parse(notReady?.body ?? "")).toEqual({
      code: "unavailable",
      message: "not ready (draining): the server is shutting down",
      status: 503,
    });
    expect(secondAnswer(liveness.received())?.status).toBe(200);

    inFlight.socket.write(body);
    await inFlight.closed;
    expect(parseRawResponse(inFlight.received(), true)?.status).toBe(200);
    await closing;
    await t.close();
  });
});

function countAnswers(text: string): number {
  return text.split("HTTP/1.1 ").length - 1;
}

function secondAnswer(text: string) {
  return parseRawResponse(text.slice(text.indexOf("HTTP/1.1", 1)), true);
}
