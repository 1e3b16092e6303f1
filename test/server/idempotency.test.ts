import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fingerprintOf, parseIdempotencyKey } from "../../src/server/idempotency.js";

describe("parseIdempotencyKey", () => {
  it("accepts 1 to 255 visible ASCII characters", () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey("a")).toBe("a");
    const uuid = "0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b";
    expect(parseIdempotencyKey(uuid)).toBe(uuid);
    const visible = Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join("");
    expect(parseIdempotencyKey(visible)).toBe(visible);
    expect(parseIdempotencyKey("k".repeat(255))).toBe("k".repeat(255));
  });

  it.each([
    ["empty", ""],
    ["256 characters", "k".repeat(256)],
    ["a space", "a b"],
    ["a tab", "a\tb"],
    ["non-ASCII", "clé"],
    ["DEL", "a\u007f"],
    ["two headers joined", "a, b"],
  ])("refuses %s with 400 invalid_header", (_name, key) => {
    expect(() => parseIdempotencyKey(key)).toThrow(
      expect.objectContaining({ statusCode: 400, code: "invalid_header" }),
    );
  });
});

describe("fingerprintOf", () => {
  const base = { petId: 42n, quantity: 7, ifMatch: undefined };

  it("is the SHA-256 of a canonical JSON text of the request", () => {
    const canonical =
      '{"operation":"updateInventory","petId":"42","body":{"quantity":7},"ifMatch":null}';
    expect(fingerprintOf(base)).toBe(createHash("sha256").update(canonical).digest("hex"));
    expect(fingerprintOf({ ...base, petId: 9223372036854775807n, ifMatch: { kind: "any" } })).toBe(
      createHash("sha256")
        .update(
          '{"operation":"updateInventory","petId":"9223372036854775807","body":{"quantity":7},"ifMatch":"*"}',
        )
        .digest("hex"),
    );
  });

  it("ignores the order and repetition of If-Match tags", () => {
    expect(fingerprintOf({ ...base, ifMatch: { kind: "tags", tags: ['"7"', '"3"', '"7"'] } })).toBe(
      fingerprintOf({ ...base, ifMatch: { kind: "tags", tags: ['"3"', '"7"'] } }),
    );
  });

  it("tells apart requests that differ in petId, quantity or If-Match", () => {
    const prints = new Set([
      fingerprintOf(base),
      fingerprintOf({ ...base, petId: 43n }),
      fingerprintOf({ ...base, quantity: 8 }),
      fingerprintOf({ ...base, ifMatch: { kind: "any" } }),
      fingerprintOf({ ...base, ifMatch: { kind: "tags", tags: ['"7"'] } }),
      fingerprintOf({ ...base, ifMatch: { kind: "tags", tags: ['W/"7"'] } }),
    ]);
    expect(prints.size).toBe(6);
  });
});
