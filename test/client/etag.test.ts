import { describe, expect, it } from "vitest";
import { isPreconditionFailed, quantityETag, quantityOfETag } from "../../src/client/etag.js";
import { ApiError } from "../../src/client/errors.js";

function apiError(status: number, code: string | undefined, etag?: string): ApiError {
  return new ApiError({
    status,
    code,
    message: "m",
    operation: "updateInventory",
    method: "PATCH",
    url: "http://x/v1/inventory/1",
    attempts: 1,
    etag,
  });
}

describe("entity tags of inventory entries", () => {
  it("writes a quantity as a quoted decimal", () => {
    expect(quantityETag(0)).toBe('"0"');
    expect(quantityETag(2147483647)).toBe('"2147483647"');
  });

  it.each([
    ['"7"', 7],
    ['"0"', 0],
    [' "2147483647" ', 2147483647],
    ['"2147483648"', undefined],
    ['"07"', undefined],
    ['W/"7"', undefined],
    ["7", undefined],
    ['"-1"', undefined],
    ['"abc"', undefined],
    ["", undefined],
    [undefined, undefined],
  ])("reads %j as quantity %j", (etag, quantity) => {
    expect(quantityOfETag(etag)).toBe(quantity);
  });

  it("knows a 412 precondition_failed (or a 412 without a code) from other errors", () => {
    expect(isPreconditionFailed(apiError(412, "precondition_failed", '"3"'))).toBe(true);
    expect(isPreconditionFailed(apiError(412, undefined))).toBe(true);
    expect(isPreconditionFailed(apiError(412, "something_else"))).toBe(false);
    expect(isPreconditionFailed(apiError(409, "conflict"))).toBe(false);
    expect(isPreconditionFailed(new Error("412"))).toBe(false);
  });
});
