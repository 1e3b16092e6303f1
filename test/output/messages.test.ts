import { describe, expect, it } from "vitest";
import type { OperationId } from "../../src/api/operations.js";
import { UsageError } from "../../src/errors.js";
import {
  ApiError,
  MalformedResponseError,
  NetworkError,
  type NetworkFailure,
} from "../../src/client/errors.js";
import { formatDeprecationWarning, formatExit } from "../../src/output/messages.js";
import { exitFor } from "../../src/program/exit.js";

/** What run() writes on stderr for `error`, and the code it returns (src/program/exit.ts). */
function formatError(
  error: unknown,
  context: { verbose: boolean; env?: Record<string, string | undefined> },
): string {
  return formatExit(exitFor(error, context));
}
function exitCodeFor(error: unknown): number {
  return exitFor(error, { verbose: false }).code;
}

const target = {
  env: "staging",
  baseUrl: "https://staging.example/v1",
  baseUrlSource: "PETSTORE_STAGING_URL",
  apiKeySource: "PETSTORE_STAGING_API_KEY",
};

const quiet = { verbose: false };

function apiError(
  status: number,
  code: string | undefined,
  more: {
    attempts?: number;
    operation?: OperationId;
    method?: string;
    path?: string;
    location?: string;
  } = {},
) {
  return new ApiError({
    status,
    code,
    message: "server says no",
    operation: more.operation ?? "listInventory",
    method: more.method ?? "GET",
    url: `https://staging.example/v1${more.path ?? "/inventory"}`,
    attempts: more.attempts ?? 1,
    location: more.location,
    target,
  });
}

function networkError(
  failure: NetworkFailure,
  message: string,
  more: { code?: string; proxy?: { address: string; source: string } } = {},
) {
  return new NetworkError({
    failure,
    code: more.code,
    message,
    method: "GET",
    url: "https://staging.example/v1/inventory",
    attempts: failure === "untrusted-certificate" ? 1 : 3,
    target,
    proxy: more.proxy,
  });
}

describe("formatError", () => {
  it("shows the server's code and the HTTP status", () => {
    expect(formatError(apiError(500, "internal_error"), quiet)).toBe(
      "error: server says no (internal_error, HTTP 500)\n" +
        "hint: the server kept failing (1 attempt); try again later, or raise --retries\n",
    );
    expect(formatError(apiError(418, undefined), quiet)).toBe("error: server says no (HTTP 418)\n");
  });

  // Each status class: the hint, and the exit code the same error maps to.
  it.each([
    [
      "400 on a write names what the user chose",
      apiError(400, "invalid_body", {
        operation: "updateInventory",
        method: "PATCH",
        path: "/inventory/42",
      }),
      "check the petId and quantity: the server's message above says what it rejected",
      6,
    ],
    [
      "400 on a read points at the server's message",
      apiError(400, "bad_request"),
      "the server rejected the request as invalid: its message above says what it rejected",
      6,
    ],
    [
      "401 names the base URL used and where the key came from",
      apiError(401, "unauthorized"),
      "check the API key for https://staging.example/v1 (from PETSTORE_STAGING_URL): it comes from PETSTORE_STAGING_API_KEY",
      4,
    ],
    [
      "403 on a write says the key lacks write permission",
      apiError(403, "forbidden", {
        operation: "updateInventory",
        method: "PATCH",
        path: "/inventory/42",
      }),
      "the API key (from PETSTORE_STAGING_API_KEY) was accepted but is read-only (scope read): it can list and get stock, not change it; use a key of scope write",
      4,
    ],
    [
      "403 on a read says the key lacks permission",
      apiError(403, "forbidden"),
      "the API key (from PETSTORE_STAGING_API_KEY) was accepted but lacks permission for this; ask for a key that has it",
      4,
    ],
    [
      "404 for a pet operation means no such pet",
      apiError(404, "pet_not_found", { operation: "getPetById", path: "/pets/7" }),
      "check the petId; petstore inventory list shows the known ones",
      5,
    ],
    [
      "404 not_found on a pet operation means no such route",
      apiError(404, "not_found", { operation: "updateInventory", path: "/inventory/7" }),
      "the server has no such route: check that the base URL https://staging.example/v1 (from PETSTORE_STAGING_URL) is right and ends in /v1",
      5,
    ],
    [
      "405",
      apiError(405, "method_not_allowed"),
      "the server does not allow GET there: is https://staging.example/v1 (from PETSTORE_STAGING_URL) a petstore API whose base URL ends in /v1?",
      6,
    ],
    [
      "409",
      apiError(409, undefined),
      "the request conflicts with the entry's current state: read it again (petstore inventory list) and retry if the change is still needed",
      6,
    ],
    [
      "413",
      apiError(413, "payload_too_large"),
      "the server (or a proxy in between) refused the request body as too large",
      6,
    ],
    [
      "415",
      apiError(415, "unsupported_media_type"),
      "the server refused a JSON body: is https://staging.example/v1 (from PETSTORE_STAGING_URL) a petstore API?",
      6,
    ],
    [
      "422 idempotency_key_reused",
      apiError(422, "idempotency_key_reused"),
      "the server already saw this request's Idempotency-Key with a different change, so it refused this one: that is a bug in petstore or a key collision. Run the command again (it sends a new key); if it happens again, report it",
      6,
    ],
    [
      "422 with another code",
      apiError(422, "unprocessable"),
      "the server understood the request but refused it: its message above says why",
      6,
    ],
    [
      "429 after the retries",
      apiError(429, "too_many_requests", { attempts: 3 }),
      "the server kept limiting the rate of requests (3 attempts); wait and try again later, or raise --retries",
      3,
    ],
    [
      "a redirect to the same path over https suggests the base URL",
      apiError(301, undefined, { location: "https://staging.example:8443/v1/inventory" }),
      "petstore does not follow redirects, and the server points to https://staging.example:8443/v1/inventory: set the base URL https://staging.example/v1 (from PETSTORE_STAGING_URL) to https://staging.example:8443/v1",
      2,
    ],
    [
      "a redirect elsewhere names the Location",
      apiError(302, undefined, { location: "/login" }),
      "petstore does not follow redirects, and the server points to /login: fix the base URL https://staging.example/v1 (from PETSTORE_STAGING_URL)",
      2,
    ],
    [
      "a redirect without Location",
      apiError(308, undefined),
      "petstore does not follow redirects: fix the base URL https://staging.example/v1 (from PETSTORE_STAGING_URL) (https instead of http?)",
      2,
    ],
  ])("hints on %s", (_name, error, hint, exitCode) => {
    expect(formatError(error, quiet)).toBe(
      `error: ${error.message} (${error.code === undefined ? "" : `${error.code}, `}HTTP ${error.status})\nhint: ${hint}\n`,
    );
    expect(exitCodeFor(error)).toBe(exitCode);
  });

  it("names the URL tried when unreachable", () => {
    const error = networkError(
      "unreachable",
      "cannot reach https://staging.example/v1/inventory: host name not found (ENOTFOUND)",
    );
    expect(formatError(error, quiet)).toBe(
      "error: cannot reach https://staging.example/v1/inventory: host name not found (ENOTFOUND)\n" +
        "hint: tried https://staging.example/v1 (from PETSTORE_STAGING_URL), 3 attempts; is the server running and the URL right?\n",
    );
    expect(exitCodeFor(error)).toBe(3);
  });

  it.each([
    [
      "--env local",
      { env: "local", baseUrl: "http://127.0.0.1:4010/v1", baseUrlSource: "--env local" },
      'PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo',
    ],
    [
      "a loopback --base-url",
      { env: "production", baseUrl: "http://localhost:4011/v1", baseUrlSource: "--base-url" },
      'PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo --port 4011',
    ],
  ])("says how to start the bundled server when %s refuses the connection", (_name, at, serve) => {
    const message = `cannot reach ${at.baseUrl}/inventory: connection refused (ECONNREFUSED)`;
    const error = new NetworkError({
      failure: "unreachable",
      code: "ECONNREFUSED",
      message,
      method: "GET",
      url: `${at.baseUrl}/inventory`,
      attempts: 3,
      target: { ...at, apiKeySource: "PETSTORE_API_KEY" },
    });
    expect(formatError(error, quiet)).toBe(
      `error: ${message}\n` +
        `hint: tried ${at.baseUrl} (from ${at.baseUrlSource}), 3 attempts, and nothing listens there; if your store is served from here, start its server (petstore serve with its --db or PETSTORE_DATABASE_URL); to try petstore with demo data: ${serve}\n`,
    );
    expect(exitCodeFor(error)).toBe(3);
  });

  it("keeps the remote hint for a refused connection elsewhere", () => {
    const error = networkError(
      "unreachable",
      "cannot reach https://staging.example/v1/inventory: connection refused (ECONNREFUSED)",
      { code: "ECONNREFUSED" },
    );
    expect(formatError(error, quiet)).toBe(
      "error: cannot reach https://staging.example/v1/inventory: connection refused (ECONNREFUSED)\n" +
        "hint: tried https://staging.example/v1 (from PETSTORE_STAGING_URL), 3 attempts; is the server running and the URL right?\n",
    );
  });

  it("points at the proxy variables when a proxy was in use", () => {
    const proxy = { address: "127.0.0.1:3128", source: "HTTPS_PROXY" };
    const refused = networkError(
      "unreachable",
      "cannot reach https://staging.example/v1/inventory via proxy 127.0.0.1:3128: connection refused (ECONNREFUSED)",
      { code: "ECONNREFUSED", proxy },
    );
    expect(formatError(refused, quiet)).toBe(
      "error: cannot reach https://staging.example/v1/inventory via proxy 127.0.0.1:3128: connection refused (ECONNREFUSED)\n" +
        "hint: tried https://staging.example/v1 (from PETSTORE_STAGING_URL) via proxy 127.0.0.1:3128 (from HTTPS_PROXY), 3 attempts; is the proxy running? Check HTTPS_PROXY, and NO_PROXY for hosts that must not use it\n",
    );
    const silent = networkError(
      "timeout",
      "GET https://staging.example/v1/inventory via proxy 127.0.0.1:3128 timed out: no answer within 500 ms",
      { proxy },
    );
    expect(formatError(silent, quiet)).toContain(
      "hint: tried https://staging.example/v1 (from PETSTORE_STAGING_URL) via proxy 127.0.0.1:3128 (from HTTPS_PROXY), 3 attempts; raise --timeout, or check the proxy: HTTPS_PROXY, and NO_PROXY for hosts that must not use it\n",
    );
    expect(exitCodeFor(silent)).toBe(3);
  });

  it.each([
    [
      "DEPTH_ZERO_SELF_SIGNED_CERT",
      "if staging.example uses a private CA (or a self-signed certificate), trust it: NODE_EXTRA_CA_CERTS=/path/ca.pem petstore ...",
    ],
    [
      "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
      "if staging.example uses a private CA (or a self-signed certificate), trust it: NODE_EXTRA_CA_CERTS=/path/ca.pem petstore ...",
    ],
    [
      "CERT_HAS_EXPIRED",
      "the certificate of staging.example is outside its dates of validity: check this machine's clock, or have the server's certificate renewed",
    ],
    [
      "ERR_TLS_CERT_ALTNAME_INVALID",
      "the certificate is not issued for staging.example: use a host name it names in https://staging.example/v1 (from PETSTORE_STAGING_URL)",
    ],
  ])("says how to deal with a certificate failure %s", (code, hint) => {
    const message = `cannot reach https://staging.example/v1/inventory: the server's certificate is not trusted: why (${code})`;
    const error = networkError("untrusted-certificate", message, { code });
    expect(formatError(error, quiet)).toBe(`error: ${message}\nhint: ${hint}\n`);
    expect(exitCodeFor(error)).toBe(3);
  });

  it("says the CA file NODE_EXTRA_CA_CERTS names did not help, when it is set (missing, or another CA)", () => {
    const message =
      "cannot reach https://staging.example/v1/inventory: the server's certificate is not trusted: why (UNABLE_TO_VERIFY_LEAF_SIGNATURE)";
    const error = networkError("untrusted-certificate", message, {
      code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    });
    expect(
      formatError(error, { verbose: false, env: { NODE_EXTRA_CA_CERTS: "/etc/petstore/ca.pem" } }),
    ).toBe(
      `error: ${message}\nhint: NODE_EXTRA_CA_CERTS names /etc/petstore/ca.pem, but no CA there signed the certificate of staging.example (or Node.js could not load the file: see its warning above): add the certificate (PEM) of the CA that did to that file, or name one that holds it\n`,
    );
    // Set but empty is not set.
    expect(formatError(error, { verbose: false, env: { NODE_EXTRA_CA_CERTS: "" } })).toContain(
      "hint: if staging.example uses a private CA (or a self-signed certificate), trust it: NODE_EXTRA_CA_CERTS=/path/ca.pem petstore ...\n",
    );
  });

  it("names the host a certificate is not issued for without the port (a certificate names no port)", () => {
    const error = new NetworkError({
      failure: "untrusted-certificate",
      code: "ERR_TLS_CERT_ALTNAME_INVALID",
      message:
        "cannot reach https://localhost:34897/v1/inventory: the server's certificate is not trusted",
      method: "GET",
      url: "https://localhost:34897/v1/inventory",
      attempts: 1,
      target,
    });
    expect(formatError(error, quiet)).toContain(
      "hint: the certificate is not issued for localhost: use a host name it names in",
    );
  });

  it("says to use http:// for an https URL at a plain HTTP server, warning of the key on another machine", () => {
    const message =
      "cannot reach https://staging.example/v1/inventory: the server there speaks plain HTTP, not HTTPS (TLS: wrong version number)";
    const error = networkError("plain-http", message, { code: "EPROTO" });
    expect(formatError(error, quiet)).toBe(
      `error: ${message}\n` +
        "hint: use http://staging.example/v1 in place of https://staging.example/v1 (from PETSTORE_STAGING_URL) only if the API key may cross the network unencrypted; else have the server serve HTTPS (petstore serve --tls-cert FILE --tls-key FILE)\n",
    );
    expect(exitCodeFor(error)).toBe(3);
  });

  it("asks whether a malformed answer came from a petstore API", () => {
    const error = new MalformedResponseError({
      message:
        "unexpected response from GET https://staging.example/v1/inventory: the body is not an array",
      method: "GET",
      url: "https://staging.example/v1/inventory",
      target,
    });
    expect(formatError(error, quiet)).toBe(
      "error: unexpected response from GET https://staging.example/v1/inventory: the body is not an array\n" +
        "hint: is https://staging.example/v1 (from PETSTORE_STAGING_URL) a petstore API? The base URL must end in /v1\n",
    );
  });

  it("prints a usage error's own hint", () => {
    expect(formatError(new UsageError("bad", "do this"), quiet)).toBe(
      "error: bad\nhint: do this\n",
    );
  });

  it("calls anything else a bug and hides the stack unless verbose", () => {
    const text = formatError(new TypeError("x is undefined"), quiet);
    expect(text).toBe(
      "error: unexpected failure: x is undefined\n" +
        "hint: this is a bug in petstore, please report it (--verbose shows the stack trace)\n",
    );
    const verbose = formatError(new TypeError("x is undefined"), { verbose: true });
    expect(verbose).toContain("TypeError: x is undefined\n    at ");
  });
});

describe("ApiError.isNoSuchPet", () => {
  it.each([
    ["updateInventory", "pet_not_found", true],
    ["getPetById", "pet_not_found", true],
    // Without an Error body the answer is not a petstore server's: no conclusion about pets.
    ["getPetById", undefined, false],
    ["updateInventory", undefined, false],
    ["updateInventory", "not_found", false],
    ["getPetById", "not_found", false],
    ["listInventory", "pet_not_found", false],
    ["listOrders", undefined, false],
  ] as const)("%s answered 404 %s: no such pet is %s", (operation, code, expected) => {
    expect(apiError(404, code, { operation }).isNoSuchPet()).toBe(expected);
  });

  it("is false for any status but 404", () => {
    expect(apiError(400, "invalid_pet_id", { operation: "getPetById" }).isNoSuchPet()).toBe(false);
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
