/** The CLI's words for a write the server refused because its storage is full (503 storage_full). */
import { describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/api/error-codes.js";
import { ApiError } from "../../src/client/errors.js";
import { formatExit } from "../../src/output/messages.js";
import { exitFor } from "../../src/program/exit.js";

function storageFull(attempts: number): ApiError {
  return new ApiError({
    status: 503,
    code: ERROR_CODES.storageFull,
    message:
      "the server's storage is full, so nothing was changed; retry once space is freed on the server",
    operation: "updateInventory",
    method: "PATCH",
    url: "http://127.0.0.1:4010/v1/inventory/1",
    attempts,
    target: {
      env: "local",
      baseUrl: "http://127.0.0.1:4010/v1",
      baseUrlSource: "PETSTORE_BASE_URL",
      apiKeySource: "PETSTORE_API_KEY",
    },
  });
}

describe("a 503 storage_full", () => {
  it("is exit 3, as any 5xx, with a hint to free space rather than to raise --retries", () => {
    const error = storageFull(3);
    const exit = exitFor(error, { verbose: false });
    expect(exit.code).toBe(3);
    const text = formatExit(exit);
    expect(text).toContain(
      "error: the server's storage is full, so nothing was changed; retry once space is freed on the server",
    );
    expect(text).toContain(
      "hint: free space on the disk where the server keeps its database (the server's log names it), then run again",
    );
    expect(text).not.toContain("--retries");
  });
});
