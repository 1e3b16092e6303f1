/**
 * The API client's errors: what failed (an HTTP status, the network, a malformed answer, a
 * setting it cannot use), never an exit code; src/program/exit.ts decides that.
 */
import { ERROR_CODES } from "../api/error-codes.js";
import { PET_OPERATIONS, type OperationId } from "../api/operations.js";

/** What an error may tell about the server it was talking to, and where that came from. Never the key. */
export interface TargetContext {
  env: string;
  baseUrl: string;
  /** `--base-url`, a variable name, or `--env local`. */
  baseUrlSource: string;
  /** The variable the key came from. */
  apiKeySource: string;
}

/** The proxy a request went through: `host:port` (never its credentials) and its variable. */
export interface ProxyContext {
  address: string;
  source: string;
}

/**
 * A setting the API client cannot use (base URL, API key, proxy variables): printed as
 * `error: <message>` with an optional hint, exit 2.
 */
export class ConfigurationError extends Error {
  readonly hint: string | undefined;

  constructor(message: string, hint?: string) {
    super(message);
    this.name = new.target.name;
    this.hint = hint;
  }
}

/** The server answered with an error status; `code` is the Error body's code when it sent one. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  /** The spec's operationId of the call that failed. */
  readonly operation: OperationId;
  readonly method: string;
  readonly url: string;
  readonly attempts: number;
  /** `Location` of a 3xx answer (the CLI does not follow redirects). */
  readonly location: string | undefined;
  /** The answer's `ETag`: a 412 carries the entry's current one. */
  readonly etag: string | undefined;
  readonly target: TargetContext | undefined;
  /** Set by the retry loop: an attempt before this answer may have reached the server. */
  earlierAttemptMayHaveReached = false;

  constructor(details: {
    status: number;
    code: string | undefined;
    message: string;
    operation: OperationId;
    method: string;
    url: string;
    attempts: number;
    location?: string | undefined;
    etag?: string | undefined;
    target?: TargetContext | undefined;
  }) {
    super(details.message);
    this.name = new.target.name;
    this.status = details.status;
    this.code = details.code;
    this.operation = details.operation;
    this.method = details.method;
    this.url = details.url;
    this.attempts = details.attempts;
    this.location = details.location;
    this.etag = details.etag;
    this.target = details.target;
  }

  /**
   * The one place that reads a 404: true when the pet the operation names does not exist,
   * false when the server does not know the route (its code `not_found`, or an operation
   * without a petId), so the base URL is wrong, or when it is not a petstore server at all
   * (isWithoutErrorBody).
   */
  isNoSuchPet(): boolean {
    return (
      this.status === 404 &&
      PET_OPERATIONS.has(this.operation) &&
      !this.isWithoutErrorBody() &&
      this.code !== ERROR_CODES.notFound
    );
  }

  /**
   * A 404 without the Error body (`code`, `message`, `status`) every petstore server sends with
   * an error: the base URL points at something else (a web server, a path without /v1).
   */
  isWithoutErrorBody(): boolean {
    return this.status === 404 && this.code === undefined;
  }
}

/**
 * What went wrong below HTTP: no connection, no complete answer in time, a server certificate
 * that does not verify, or an https URL at a server that speaks plain HTTP (the last two never
 * retried: another attempt meets the same server).
 */
export const NETWORK_FAILURES = [
  "unreachable",
  "timeout",
  "untrusted-certificate",
  "plain-http",
] as const;
export type NetworkFailure = (typeof NETWORK_FAILURES)[number];

/** Failures of a connection that was never made: its request cannot have reached the server. */
const NEVER_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

/** The server could not be reached or did not answer in time, after retries. */
export class NetworkError extends Error {
  readonly failure: NetworkFailure;
  /** The system or TLS error code behind the failure (ECONNREFUSED, CERT_HAS_EXPIRED, ...). */
  readonly code: string | undefined;
  readonly method: string;
  readonly url: string;
  readonly attempts: number;
  readonly target: TargetContext | undefined;
  /** The proxy the request went through, when one was in use. */
  readonly proxy: ProxyContext | undefined;
  /**
   * Set by the retry loop: an attempt before this one may have reached the server (see
   * mayHaveReachedServer). Of a write, then, the last attempt's failure does not say all.
   */
  earlierAttemptMayHaveReached = false;

  /**
   * Whether this attempt's request may have reached the server: all but a connection that
   * was never made (refused, a name that does not resolve, no route) or never secured (an
   * untrusted certificate, plain HTTP at an https URL).
   */
  mayHaveReachedServer(): boolean {
    if (this.failure === "untrusted-certificate" || this.failure === "plain-http") return false;
    return this.code === undefined || !NEVER_CONNECTED.has(this.code);
  }

  constructor(details: {
    failure: NetworkFailure;
    code?: string | undefined;
    message: string;
    method: string;
    url: string;
    attempts: number;
    target?: TargetContext | undefined;
    proxy?: ProxyContext | undefined;
  }) {
    super(details.message);
    this.name = new.target.name;
    this.failure = details.failure;
    this.code = details.code;
    this.method = details.method;
    this.url = details.url;
    this.attempts = details.attempts;
    this.target = details.target;
    this.proxy = details.proxy;
  }
}

/**
 * The server answered 2xx but the body is not what the spec promises. Not a bug of
 * the CLI, and nothing a retry fixes reliably: treated like a failing server.
 */
export class MalformedResponseError extends Error {
  readonly method: string;
  readonly url: string;
  readonly target: TargetContext | undefined;

  constructor(details: {
    message: string;
    method: string;
    url: string;
    target?: TargetContext | undefined;
  }) {
    super(details.message);
    this.name = new.target.name;
    this.method = details.method;
    this.url = details.url;
    this.target = details.target;
  }
}

/** What one call of the API client fails with, once its retries are spent. */
export type ClientFailure = ApiError | NetworkError | MalformedResponseError;
