import { describe, expect, it } from "vitest";
import { formatTraceEvent } from "../../src/output/trace.js";

describe("formatTraceEvent", () => {
  it("shows what was sent with > and what came back with <", () => {
    expect(
      formatTraceEvent({
        kind: "request",
        attempt: 2,
        method: "PATCH",
        url: "http://x/v1/inventory/1",
        headers: { authorization: "Bearer [redacted]" },
        body: '{"quantity":1}',
      }),
    ).toBe(
      '* attempt 2: PATCH http://x/v1/inventory/1\n> authorization: Bearer [redacted]\n> {"quantity":1}\n',
    );
    expect(
      formatTraceEvent({
        kind: "response",
        method: "PATCH",
        url: "u",
        status: 404,
        headers: { "content-type": "application/json" },
        body: "{}",
        elapsedMs: 12.4,
      }),
    ).toBe("< 404 Not Found (12 ms)\n< content-type: application/json\n< {}\n");
  });

  it("shortens very long bodies", () => {
    const text = formatTraceEvent({
      kind: "response",
      method: "GET",
      url: "u",
      status: 200,
      headers: {},
      body: "x".repeat(10_000),
      elapsedMs: 1,
    });
    expect(text.length).toBeLessThan(4_100);
    expect(text).toContain("… (10000 chars)");
  });
});
