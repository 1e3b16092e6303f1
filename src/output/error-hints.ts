/** The `hint:` lines of the errors the API client raises: what to do about each failure. */
import { ERROR_CODES } from "../api/error-codes.js";
import type { OperationId } from "../api/operations.js";
import {
  type ApiError,
  type MalformedResponseError,
  type NetworkError,
  type TargetContext,
} from "../client/errors.js";
import { isLoopbackHost } from "../api/loopback.js";
import { serveCommandFor } from "./serve-hint.js";

function times(count: number): string {
  return count === 1 ? "1 attempt" : `${count} attempts`;
}

/** "https://x/v1 (from PETSTORE_BASE_URL)", or the URL alone when the target is unknown. */
function where(target: TargetContext | undefined, url: string): string {
  return target === undefined ? url : `${target.baseUrl} (from ${target.baseUrlSource})`;
}

/** What the caller chose in each operation, for a 400's hint. */
const OPERATION_INPUTS: Readonly<Partial<Record<OperationId, string>>> = {
  getInventoryItem: "the petId",
  updateInventory: "the petId and quantity",
  getInventoryHistory: "the petId and --limit",
  getPetById: "the petId",
};

/**
 * The base URL that would have reached what a redirect points at: the Location without the
 * path the call added, when it ends with that path.
 */
function redirectedBaseUrl(error: ApiError, location: string): string | undefined {
  const target = error.target;
  if (target === undefined || !error.url.startsWith(target.baseUrl)) return undefined;
  const path = error.url.slice(target.baseUrl.length);
  let resolved: string;
  try {
    resolved = new URL(location, error.url).href;
  } catch {
    return undefined;
  }
  return path !== "" && resolved.endsWith(path) ? resolved.slice(0, -path.length) : undefined;
}

function redirectHint(error: ApiError): string {
  const location = error.location;
  const configured =
    error.target === undefined
      ? "the base URL"
      : `the base URL ${error.target.baseUrl} (from ${error.target.baseUrlSource})`;
  if (location === undefined) {
    return `petstore does not follow redirects: fix ${configured} (https instead of http?)`;
  }
  const suggested = redirectedBaseUrl(error, location);
  return suggested === undefined
    ? `petstore does not follow redirects, and the server points to ${location}: fix ${configured}`
    : `petstore does not follow redirects, and the server points to ${location}: set ${configured} to ${suggested}`;
}

/**
 * The hint for a 404 without an Error body: a base URL without /v1 gets it added; one with it
 * is asked whether it is a petstore server's.
 */
function foreignServerHint(error: ApiError): string {
  const target = error.target;
  if (target === undefined) {
    return "check the base URL: a petstore server's ends in /v1, and answers every error with a JSON Error body";
  }
  const configured = `${target.baseUrl} (from ${target.baseUrlSource})`;
  const base = target.baseUrl.replace(/\/+$/, "");
  return base.endsWith("/v1")
    ? `check that ${configured} is a petstore server's base URL: a petstore server answers every error with a JSON Error body`
    : `check the base URL ${configured}: a petstore server's ends in /v1, as in ${base}/v1`;
}

/** The hint for an error status, by what the status says about the request. */
export function apiErrorHint(error: ApiError): string | undefined {
  const { status, target } = error;
  if (status >= 300 && status < 400) return redirectHint(error);
  switch (status) {
    case 400: {
      const inputs = OPERATION_INPUTS[error.operation];
      return inputs === undefined
        ? "the server rejected the request as invalid: its message above says what it rejected"
        : `check ${inputs}: the server's message above says what it rejected`;
    }
    case 401:
      return target === undefined
        ? "check the API key"
        : `check the API key for ${target.baseUrl} (from ${target.baseUrlSource}): it comes from ${target.apiKeySource}`;
    case 403: {
      const key =
        target === undefined ? "the API key" : `the API key (from ${target.apiKeySource})`;
      return error.method === "GET"
        ? `${key} was accepted but lacks permission for this; ask for a key that has it`
        : `${key} was accepted but is read-only (scope read): it can list and get stock, not change it; use a key of scope write`;
    }
    case 404:
      if (error.isWithoutErrorBody()) return foreignServerHint(error);
      if (error.isNoSuchPet()) {
        return "check the petId; petstore inventory list shows the known ones";
      }
      return target === undefined
        ? "the server has no such route: check that the base URL is right and ends in /v1"
        : `the server has no such route: check that the base URL ${target.baseUrl} (from ${target.baseUrlSource}) is right and ends in /v1`;
    case 405:
      return `the server does not allow ${error.method} there: is ${where(target, error.url)} a petstore API whose base URL ends in /v1?`;
    case 409:
      return "the request conflicts with the entry's current state: read it again (petstore inventory list) and retry if the change is still needed";
    case 412:
      return "the entry changed since it was read, and nothing was changed: read it again (petstore inventory get <petId>) and decide, or use petstore inventory adjust for a relative change";
    case 413:
      return "the server (or a proxy in between) refused the request body as too large";
    case 415:
      return `the server refused a JSON body: is ${where(target, error.url)} a petstore API?`;
    case 422:
      if (error.code === ERROR_CODES.idempotencyKeyReused) {
        return "the server already saw this request's Idempotency-Key with a different change, so it refused this one: that is a bug in petstore or a key collision. Run the command again (it sends a new key); if it happens again, report it";
      }
      return "the server understood the request but refused it: its message above says why";
    case 429:
      return `the server kept limiting the rate of requests (${times(error.attempts)}); wait and try again later, or raise --retries`;
    default:
      if (error.code === ERROR_CODES.storageFull) {
        return "free space on the disk where the server keeps its database (the server's log names it), then run again";
      }
      if (status >= 500 || status === 408) {
        return `the server kept failing (${times(error.attempts)}); try again later, or raise --retries`;
      }
      return undefined;
  }
}

/** Certificate failures about dates, and about names; the rest are about trust. */
const EXPIRY_CODES: ReadonlySet<string> = new Set(["CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID"]);
const NAME_CODES: ReadonlySet<string> = new Set([
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "HOSTNAME_MISMATCH",
]);

function certificateHint(error: NetworkError, extraCaCerts: string | undefined): string {
  const code = error.code ?? "";
  const host = new URL(error.url).host;
  if (EXPIRY_CODES.has(code)) {
    return `the certificate of ${host} is outside its dates of validity: check this machine's clock, or have the server's certificate renewed`;
  }
  if (NAME_CODES.has(code)) {
    // A certificate names hosts, not ports.
    const name = new URL(error.url).hostname;
    return `the certificate is not issued for ${name}: use a host name it names in ${where(error.target, error.url)}`;
  }
  if (extraCaCerts !== undefined && extraCaCerts !== "") {
    // Node.js reads the file as it starts and says on stderr when it cannot.
    return `NODE_EXTRA_CA_CERTS names ${extraCaCerts}, but no CA there signed the certificate of ${host} (or Node.js could not load the file: see its warning above): add the certificate (PEM) of the CA that did to that file, or name one that holds it`;
  }
  return `if ${host} uses a private CA (or a self-signed certificate), trust it: NODE_EXTRA_CA_CERTS=/path/ca.pem petstore ...`;
}

/**
 * The hint for an https URL at a server that speaks plain HTTP: the same URL with http://, and
 * for another machine, that the key would then cross the network unencrypted.
 */
function plainHttpHint(error: NetworkError): string {
  const configured = error.target?.baseUrl ?? error.url;
  const from = error.target === undefined ? "" : ` (from ${error.target.baseUrlSource})`;
  const plain = configured.replace(/^https:/i, "http:");
  const use = `use ${plain} in place of ${configured}${from}`;
  return isLoopbackHost(new URL(error.url).hostname)
    ? use
    : `${use} only if the API key may cross the network unencrypted; else have the server serve HTTPS (petstore serve --tls-cert FILE --tls-key FILE)`;
}

/**
 * The hint for a failure below HTTP: where it tried, through which proxy, and what to check; a
 * refused connection where the bundled server could listen (`--env local`, a loopback URL)
 * says how to start it there.
 */
export function networkErrorHint(
  error: NetworkError,
  env: Readonly<Record<string, string | undefined>> = {},
): string {
  if (error.failure === "untrusted-certificate") {
    return certificateHint(error, env.NODE_EXTRA_CA_CERTS);
  }
  if (error.failure === "plain-http") return plainHttpHint(error);
  const tried = `tried ${where(error.target, error.url)}`;
  const proxy = error.proxy;
  if (proxy !== undefined) {
    const via = `${tried} via proxy ${proxy.address} (from ${proxy.source}), ${times(error.attempts)}`;
    return error.failure === "timeout"
      ? `${via}; raise --timeout, or check the proxy: ${proxy.source}, and NO_PROXY for hosts that must not use it`
      : `${via}; is the proxy running? Check ${proxy.source}, and NO_PROXY for hosts that must not use it`;
  }
  if (error.failure === "timeout") {
    return `${tried}, ${times(error.attempts)}; raise --timeout or check the network`;
  }
  const serve =
    error.code === "ECONNREFUSED" && error.target !== undefined
      ? serveCommandFor(error.target.baseUrl, error.target.apiKeySource)
      : undefined;
  if (serve !== undefined) {
    // Never the demo alone: a store's server that is down, started so elsewhere, would serve
    // a new store of demo pets, and the shop's sales would go to it.
    return `${tried}, ${times(error.attempts)}, and nothing listens there; if your store is served from here, start its server (petstore serve with its --db or PETSTORE_DATABASE_URL); to try petstore with demo data: ${serve}`;
  }
  // Plain HTTP sent to a TLS port: the server ends the connection without a word.
  const https =
    error.code === "ECONNRESET" && /^http:/i.test(error.url) ? ` (https:// if it serves TLS)` : "";
  return `${tried}, ${times(error.attempts)}; is the server running and the URL right${https}?`;
}

/** The hint for a 2xx answer that is not what a petstore API sends. */
export function malformedResponseHint(error: MalformedResponseError): string {
  const server =
    error.target === undefined
      ? "the server"
      : `${error.target.baseUrl} (from ${error.target.baseUrlSource})`;
  return `is ${server} a petstore API? The base URL must end in /v1`;
}
