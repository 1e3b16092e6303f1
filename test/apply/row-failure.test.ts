import { describe, expect, it } from "vitest";
import { describeRowFailure } from "../../src/apply/row-failure.js";
import { ApiError, MalformedResponseError, NetworkError } from "../../src/client/errors.js";

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

  describe("a request without an answer: applied or not, only what is known", () => {
    const network = (
      failure: "unreachable" | "timeout" | "untrusted-certificate",
      code: string | undefined,
      attempts: number,
      message = "cannot reach http://x/v1/inventory/batch",
    ) =>
      new NetworkError({
        failure,
        code,
        message,
        method: "POST",
        url: "http://x/v1/inventory/batch",
        attempts,
      });

    it.each([
      ["refused on its only attempt", network("unreachable", "ECONNREFUSED", 1)],
      // A server that was down the whole time: every attempt refused (the retry loop says so).
      ["refused on every attempt", network("unreachable", "ECONNREFUSED", 3)],
      ["a name that does not resolve", network("unreachable", "ENOTFOUND", 1)],
      ["an untrusted certificate", network("untrusted-certificate", "CERT_HAS_EXPIRED", 1)],
    ])("%s: never reached the server, so not applied", (_name, error) => {
      const attempts = error.attempts > 1 ? ` (after ${error.attempts} attempts)` : "";
      expect(describeRowFailure(error)).toEqual({ reason: `${error.message}${attempts}` });
    });

    it("a dry run applies nothing, answered or not", () => {
      const error = network("timeout", undefined, 1, "POST http://x/v1/inventory/batch timed out");
      expect(describeRowFailure(error, { dryRun: true })).toEqual({ reason: error.message });
    });

    it.each([
      ["timed out", network("timeout", undefined, 1, "POST http://x/v1/inventory/batch timed out")],
      ["reset once sent", network("unreachable", "ECONNRESET", 1)],
      [
        "refused after an earlier attempt that may have reached it",
        Object.assign(network("unreachable", "ECONNREFUSED", 3), {
          earlierAttemptMayHaveReached: true,
        }),
      ],
    ])("%s: may have been applied, and said so", (_name, error) => {
      const attempts = error.attempts > 1 ? ` (after ${error.attempts} attempts)` : "";
      expect(describeRowFailure(error)).toEqual({
        reason: `${error.message}${attempts}; it may have been applied`,
        unanswered: true,
      });
    });

    it("an answer that could not be read may have been applied", () => {
      const error = new MalformedResponseError({
        message: "unexpected response from POST http://x/v1/inventory/batch: results is missing",
        method: "POST",
        url: "http://x/v1/inventory/batch",
      });
      expect(describeRowFailure(error)).toEqual({
        reason: `${error.message}; it may have been applied`,
        unanswered: true,
      });
    });
  });
});
