/**
 * Faults a real server cannot produce on demand, on the stub server: time-outs (a stub that
 * never answers), resets, refusals (a closed port), 5xx, 429 with Retry-After.
 */
import { describe, expect, it } from "vitest";
import { BASE_URL, closedPort, CONFIGURED_ENV, HttpStubs, json, runFake } from "../fake-deps.js";

const LIST = '[{"petId":1,"quantity":2,"status":"available"}]';
const LIST_PATH = "/v1/inventory";

describe("retries", () => {
  it("retries a 503 and succeeds on the next attempt", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", LIST_PATH)
      .reply(503, '{"code":"unavailable","message":"busy","status":503}', json);
    stubs.on("GET", LIST_PATH).reply(200, LIST, json);
    const result = await runFake(["inventory", "list"], { stubs });
    expect(result).toMatchObject({ code: 0, stdout: "1\t2\tavailable\n", stderr: "" });
    expect(stubs.calls()).toEqual(["GET /v1/inventory", "GET /v1/inventory"]);
    // First backoff step is 500 ms with equal jitter; the fake random() is 0.5.
    expect(result.sleeps).toEqual([375]);
  });

  it("backs off exponentially over 502, 504 then succeeds", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", LIST_PATH).reply(502, "bad gateway");
    stubs.on("GET", LIST_PATH).reply(504, "gateway timeout");
    stubs.on("GET", LIST_PATH).reply(200, LIST, json);
    const result = await runFake(["inventory", "list"], { stubs });
    expect(result.code).toBe(0);
    expect(result.sleeps).toEqual([375, 750]);
  });

  it("waits as long as Retry-After (seconds) asks on a 429", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", LIST_PATH)
      .reply(429, '{"code":"too_many_requests","message":"slow down","status":429}', {
        headers: { "content-type": "application/json", "retry-after": "3" },
      });
    stubs.on("GET", LIST_PATH).reply(200, LIST, json);
    const result = await runFake(["inventory", "list"], { stubs });
    expect(result.code).toBe(0);
    expect(result.sleeps).toEqual([3000]);
  });

  it("honours Retry-After as an HTTP-date", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", LIST_PATH)
      .reply(503, "", { headers: { "retry-after": "Sun, 01 Jun 2025 12:00:05 GMT" } });
    stubs.on("GET", LIST_PATH).reply(200, LIST, json);
    const result = await runFake(["inventory", "list"], {
      stubs,
      now: Date.parse("2025-06-01T12:00:00Z"),
    });
    expect(result.code).toBe(0);
    expect(result.sleeps).toEqual([5000]);
  });

  it("caps a very long Retry-After at 30 seconds", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", LIST_PATH).reply(429, "", { headers: { "retry-after": "86400" } });
    stubs.on("GET", LIST_PATH).reply(200, LIST, json);
    const result = await runFake(["inventory", "list"], { stubs });
    expect(result.sleeps).toEqual([30_000]);
  });

  it("gives up after --retries and reports the last 429 (exit 3)", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", LIST_PATH)
      .reply(429, '{"code":"too_many_requests","message":"slow down","status":429}', json)
      .times(2);
    const result = await runFake(["--retries", "1", "inventory", "list"], { stubs });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      "error: slow down (too_many_requests, HTTP 429)\n" +
        "hint: the server kept limiting the rate of requests (2 attempts); wait and try again later, or raise --retries\n",
    );
    expect(stubs.calls()).toHaveLength(2);
  });

  it("reports a 500 at once, without retrying, as exit 3 with the server code", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", LIST_PATH)
      .reply(500, '{"code":"internal_error","message":"internal server error","status":500}', json);
    const result = await runFake(["inventory", "list"], { stubs });
    expect(result.code).toBe(3);
    // 500 is not retried: it is rarely transient, and retrying it only delays the report.
    expect(stubs.calls()).toHaveLength(1);
    expect(result.stderr).toContain("error: internal server error (internal_error, HTTP 500)\n");
  });

  it("says so when an error response has no Error body", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", LIST_PATH).reply(503, "<html>down</html>").times(3);
    const result = await runFake(["inventory", "list"], { stubs });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      "error: the server answered 503 Service Unavailable (HTTP 503)\n",
    );
    expect(result.stderr).toContain("(3 attempts)");
    expect(result.sleeps).toEqual([375, 750]);
  });

  it("retries a connection reset", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", LIST_PATH).reset();
    stubs.on("GET", LIST_PATH).reply(200, LIST, json);
    const result = await runFake(["inventory", "list"], { stubs });
    expect(result).toMatchObject({ code: 0, stdout: "1\t2\tavailable\n" });
    expect(stubs.calls()).toHaveLength(2);
  });

  it("reports an unreachable server with the URL it tried (exit 3)", async () => {
    // Not under /v1: a loopback URL whose path is /v1 gets the `petstore serve` hint instead
    // (network.test.ts), and this is the hint for a server elsewhere.
    const baseUrl = `http://127.0.0.1:${await closedPort()}/api/v1`;
    const result = await runFake(["inventory", "list"], {
      env: { ...CONFIGURED_ENV, PETSTORE_BASE_URL: baseUrl },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `error: cannot reach ${baseUrl}/inventory: connection refused (ECONNREFUSED)\n` +
        `hint: tried ${baseUrl} (from PETSTORE_BASE_URL), 3 attempts; is the server running and the URL right?\n`,
    );
    expect(result.stdout).toBe("");
  });

  it("times out an attempt after --timeout and retries it", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", LIST_PATH).hang();
    stubs.on("GET", LIST_PATH).reply(200, LIST, json);
    const result = await runFake(["--timeout", "50", "--verbose", "inventory", "list"], { stubs });
    expect(result).toMatchObject({ code: 0, stdout: "1\t2\tavailable\n" });
    // Two calls: the first (never answered) was given up at 50 ms.
    expect(stubs.calls()).toEqual(["GET /v1/inventory", "GET /v1/inventory"]);
    expect(result.stderr).toContain("timed out: no answer within 50 ms");
    expect(result.sleeps).toEqual([375]);
  });

  it("reports a time-out after the retries (exit 3)", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", LIST_PATH).hang().times(2);
    const result = await runFake(["--timeout", "50", "--retries", "1", "inventory", "list"], {
      stubs,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `error: GET ${BASE_URL}/inventory timed out: no answer within 50 ms\n` +
        `hint: tried ${BASE_URL} (from PETSTORE_BASE_URL), 2 attempts; raise --timeout or check the network\n`,
    );
  });

  it("does not retry with --retries 0", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", LIST_PATH).reply(503, "").persist();
    const result = await runFake(["--retries", "0", "inventory", "list"], { stubs });
    expect(result.code).toBe(3);
    expect(stubs.calls()).toHaveLength(1);
    expect(result.sleeps).toEqual([]);
  });

  it("traces each retry with --verbose", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", LIST_PATH).reply(503, "");
    stubs.on("GET", LIST_PATH).reply(200, LIST, json);
    const result = await runFake(["--verbose", "inventory", "list"], { stubs });
    expect(result.stderr).toContain("* retrying in 375 ms (attempt 2)");
    expect(result.stderr).toContain("* attempt 2: GET");
  });
});
