import { describe, expect, it } from "vitest";
import { timeOrderedUuid } from "../../src/client/idempotency-key.js";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("timeOrderedUuid", () => {
  it("puts the time in milliseconds first, then the version and variant, the rest random", () => {
    const random = Uint8Array.from({ length: 16 }, () => 0xff);
    // 2026-11-25T08:00:00.000Z is 0x01a211b7fc00 ms.
    expect(timeOrderedUuid(Date.UTC(2026, 10, 25, 8), random)).toBe(
      "01a211b7-fc00-7fff-bfff-ffffffffffff",
    );
    expect(timeOrderedUuid(0, new Uint8Array(16))).toBe("00000000-0000-7000-8000-000000000000");
  });

  it("sorts keys made later after earlier ones, as text", () => {
    const keys = [1, 2, 1_000, 2 ** 40, Date.now()].map((at) => timeOrderedUuid(at));
    for (const key of keys) expect(key).toMatch(UUID_V7);
    expect([...keys].sort()).toEqual(keys);
  });

  it("keeps keys of the same millisecond apart", () => {
    const now = Date.now();
    const keys = new Set(Array.from({ length: 1000 }, () => timeOrderedUuid(now)));
    expect(keys.size).toBe(1000);
  });

  it("does not change the random bytes it is given", () => {
    const random = new Uint8Array(16).fill(7);
    timeOrderedUuid(123, random);
    expect([...random]).toEqual(new Array(16).fill(7));
  });
});
