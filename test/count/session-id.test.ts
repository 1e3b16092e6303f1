import { describe, expect, it } from "vitest";
import { countRef, newSessionId } from "../../src/commands/inventory/count-run.js";

const NOON = Date.parse("2026-11-27T12:00:00.250Z");

describe("newSessionId", () => {
  it("is the start in UTC to the second, then 8 random hex digits", () => {
    expect(newSessionId(NOON, () => 0)).toBe("20261127-120000-00000000");
    expect(newSessionId(NOON, () => 0.999999999999)).toBe("20261127-120000-ffffffff");
    expect(newSessionId(NOON, () => 0.5)).toBe("20261127-120000-80000000");
  });

  it("tells apart two sessions of one second whose random parts 4 digits would have made one", () => {
    // 0x1234_0000 and 0x1234_ffff: the same first 4 hex digits.
    const first = newSessionId(NOON, () => 0x1234_0000 / 0x1_0000_0000);
    const second = newSessionId(NOON, () => 0x1234_ffff / 0x1_0000_0000);
    expect(first).not.toBe(second);
    expect(countRef(first, 7n)).not.toBe(countRef(second, 7n));
  });
});
