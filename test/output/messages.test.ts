import { describe, expect, it } from "vitest";
import { ApiError, NetworkError, UsageError } from "../../src/errors.js";
import { formatDeprecationWarning, formatError } from "../../src/output/messages.js";

const target = {
  env: "staging",
  baseUrl: "https://staging.example/v1",
  baseUrlSource: "PETSTORE_STAGING_URL",
  apiKeySource: "PETSTORE_STAGING_API_KEY",
};

function apiError(status: number, code: string | undefined, attempts = 1) {
  return new ApiError({
    status,
    code,
    message: "server says no",
    method: "GET",
    url: "https://staging.example/v1/inventory",
    attempts,
  });
}

describe("formatError", () => {
  it("shows the server's code and the HTTP status", () => {
    expect(formatError(apiError(400, "invalid_body"), { target, verbose: false })).toBe(
      "error: server says no (invalid_body, HTTP 400)\n",
    );
    expect(formatError(apiError(409, undefined), { target, verbose: false })).toBe(
      "error: server says no (HTTP 409)\n",
    );
  });

  it("names the key variable of the selected environment on 401", () => {
    expect(formatError(apiError(401, "unauthorized"), { target, verbose: false })).toContain(
      "hint: check the API key for --env staging: it comes from PETSTORE_STAGING_API_KEY\n",
    );
  });

  it("names the URL tried when unreachable", () => {
    const error = new NetworkError({
      failure: "unreachable",
      message: "cannot reach https://staging.example/v1/inventory: host name not found (ENOTFOUND)",
      method: "GET",
      url: "https://staging.example/v1/inventory",
      attempts: 3,
    });
    expect(formatError(error, { target, verbose: false })).toBe(
      "error: cannot reach https://staging.example/v1/inventory: host name not found (ENOTFOUND)\n" +
        "hint: tried https://staging.example/v1 (from PETSTORE_STAGING_URL), 3 attempts; is the server running and the URL right?\n",
    );
  });

  it("prints a usage error's own hint", () => {
    expect(formatError(new UsageError("bad", "do this"), { verbose: false })).toBe(
      "error: bad\nhint: do this\n",
    );
  });

  it("calls anything else a bug and hides the stack unless verbose", () => {
    const quiet = formatError(new TypeError("x is undefined"), { verbose: false });
    expect(quiet).toBe(
      "error: unexpected failure: x is undefined\n" +
        "hint: this is a bug in petstore, please report it (--verbose shows the stack trace)\n",
    );
    const verbose = formatError(new TypeError("x is undefined"), { verbose: true });
    expect(verbose).toContain("TypeError: x is undefined\n    at ");
  });
});

describe("formatDeprecationWarning", () => {
  it("reads RFC 9745 and RFC 8594 dates", () => {
    expect(
      formatDeprecationWarning({
        method: "GET",
        url: "http://x/v1/pets/1",
        deprecation: "@1767225600",
        sunset: "Thu, 01 Jul 2027 00:00:00 GMT",
      }),
    ).toBe(
      "warning: the server marks GET http://x/v1/pets/1 as deprecated since 2026-01-01; it stops working after 2027-07-01\n",
    );
  });

  it("copes with only a Sunset header, or an odd Deprecation value", () => {
    expect(
      formatDeprecationWarning({ method: "GET", url: "u", deprecation: undefined, sunset: "soon" }),
    ).toBe("warning: the server marks GET u as deprecated; it stops working after soon\n");
    expect(
      formatDeprecationWarning({ method: "GET", url: "u", deprecation: "true", sunset: undefined }),
    ).toBe("warning: the server marks GET u as deprecated\n");
  });
});
