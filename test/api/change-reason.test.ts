import { describe, expect, it } from "vitest";
import { decodeChangeReason, encodeChangeReason } from "../../src/api/change-reason.js";

describe("decodeChangeReason", () => {
  it("keeps a leading U+FEFF: the reason read is the reason sent", () => {
    for (const reason of ["\ufeffrecount", "\ufeff", "\ufeff\ufeffx"]) {
      expect(decodeChangeReason(encodeChangeReason(reason))).toBe(reason);
    }
  });
});
