import { describe, expect, it } from "vitest";
import { describeRowFailure } from "../../src/apply/row-failure.js";
import { ApiError } from "../../src/client/errors.js";

function patch404(code: string | undefined, message: string) {
  return new ApiError({
    status: 404,
    code,
    message,
    operation: "updateInventory",
    method: "PATCH",
    url: "http://x/v1/inventory/9",
    attempts: 1,
  });
}

describe("describeRowFailure", () => {
  it("reads a 404 for the pet as no such pet", () => {
    expect(describeRowFailure(patch404("pet_not_found", "no pet with petId 9"))).toEqual({
      reason: "no such pet",
      code: "pet_not_found",
      status: 404,
    });
  });

  it("reads a 404 for an unknown route as what the server said, not a missing pet", () => {
    expect(describeRowFailure(patch404("not_found", "no route PATCH /v2/inventory/9"))).toEqual({
      reason: "no route PATCH /v2/inventory/9 (not_found, HTTP 404)",
      code: "not_found",
      status: 404,
    });
  });

  it("reads a 412 as changed since it was read, with the quantity from the ETag when usable", () => {
    const conflict = (etag: string | undefined) =>
      new ApiError({
        status: 412,
        code: "precondition_failed",
        message: "the entry does not match If-Match",
        operation: "updateInventory",
        method: "PATCH",
        url: "http://x/v1/inventory/9",
        attempts: 1,
        etag,
      });
    expect(describeRowFailure(conflict('"7"'))).toEqual({
      reason: "changed to 7 since it was read; not overwritten",
      code: "precondition_failed",
      status: 412,
    });
    expect(describeRowFailure(conflict(undefined))).toEqual({
      reason: "changed since it was read; not overwritten",
      code: "precondition_failed",
      status: 412,
    });
  });
});
