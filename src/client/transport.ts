/**
 * One API call over HTTP: the request with its headers, a deadline for every phase, the
 * retries, and the answer turned into a decoded value or a typed error. It never prints:
 * it reports through the `trace` and `onDeprecation` callbacks.
 */
import type { OperationId } from "../api/operations.js";
import type { InventoryUpdate } from "../api/types.js";
import {
  ApiError,
  MalformedResponseError,
  NetworkError,
  type ClientFailure,
  type ProxyContext,
} from "./errors.js";
import { decodeErrorBody, parseJson, ShapeError } from "./decode.js";
import { describeNetworkFailure } from "./network-failure.js";
import { reasonPhrase } from "./reason-phrase.js";
import {
  FailedAttempt,
  LASTING_NETWORK_FAILURES,
  parseRetryAfter,
  RETRYABLE_STATUSES,
  withRetries,
} from "./retry.js";
import type { RetryPolicy } from "./retry.js";
import { describeTarget, type Target } from "./target.js";

/** What the --verbose trace is told. Header values are already redacted. */
export type TraceEvent =
  | {
      kind: "request";
      attempt: number;
      method: string;
      url: string;
      headers: Readonly<Record<string, string>>;
      body: string | undefined;
    }
  | {
      kind: "response";
      method: string;
      url: string;
      status: number;
      headers: Readonly<Record<string, string>>;
      body: string;
      elapsedMs: number;
    }
  | { kind: "failure"; method: string; url: string; message: string; elapsedMs: number }
  | { kind: "retry"; nextAttempt: number; delayMs: number; reason: string };

/** A response announced that its operation is deprecated (RFC 9745) or sunset (RFC 8594). */
export interface DeprecationNotice {
  method: string;
  url: string;
  deprecation: string | undefined;
  sunset: string | undefined;
}

/** Response headers by lower-case name; repeated headers are joined with ", ". */
export type ResponseHeaders = Readonly<Record<string, string>>;

/** What a decoder sees of a successful response besides its body. */
export interface ResponseInfo {
  status: number;
  headers: ResponseHeaders;
}

/** One call of an operation of the spec. */
export interface Call<T> {
  /** The spec's operationId, carried by the errors the call raises. */
  operation: OperationId;
  method: "GET" | "PATCH" | "POST";
  /** Path below the base URL, starting with `/`. */
  path: string;
  /**
   * The JSON body: a value JSON.stringify writes, or a string of JSON already written (a
   * batch, whose int64 petIds JSON.stringify cannot write exactly), sent as it is.
   */
  body?: InventoryUpdate | string | undefined;
  /**
   * Headers of this call (If-Match, Idempotency-Key, X-Change-Reason, ...), lower-case
   * names. Every retry of the call sends the same values. The client's own (accept,
   * authorization, content-type, user-agent) cannot be replaced.
   */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Checks a 2xx body (parsed losslessly) and may read the response headers; throws ShapeError. */
  decode: (body: unknown, response: ResponseInfo) => T;
  /**
   * Reads more than `code` and `message` from an error answer's body (parsed losslessly) and
   * headers, for errors that carry data (a 409 `batch_rejected` carries every change's result
   * and its Inventory-Seq) or say more than their status (a batch's count changes refused as
   * unknown fields): returns the error to raise instead of `error`, or `error` itself; throws
   * ShapeError when the body does not have the shape the error promises.
   */
  decodeError?:
    ((error: ApiError, body: unknown, headers: ResponseHeaders) => ApiError) | undefined;
  /**
   * How long the server may hold the request before it answers (a long poll's `wait`), in
   * milliseconds: added to the attempt's time-out, which bounds the rest as for any call.
   */
  waitMs?: number | undefined;
  /**
   * Gives the call up (a follower interrupted): the attempt in flight is aborted and no other
   * is made; the call rejects with the signal's reason.
   */
  signal?: AbortSignal | undefined;
}

/** One request as the transport sends it: headers complete, body serialized. */
export interface ExchangeRequest {
  method: string;
  /** Lower-case names, authorization included. */
  headers: Readonly<Record<string, string>>;
  body: string | undefined;
  /** Aborts the request when the attempt's deadline passes. */
  signal: AbortSignal;
  /** The attempt's time-out, for clients that also bound each phase. */
  timeoutMs: number;
}

/** A whole answer: status, headers (names in lower case) and body. */
export interface ExchangeAnswer {
  status: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  text: string;
}

/**
 * What the transport needs of an HTTP client: send one request, read its whole answer, reject
 * with the client's error when there is none (http-exchange.ts, or undici in dispatcher.ts).
 */
export type Exchange = (url: string, request: ExchangeRequest) => Promise<ExchangeAnswer>;

export interface TransportOptions {
  /** The server and key; errors carry the target without the key. */
  target: Target;
  /** How requests are sent (connections.ts picks it). */
  exchange: Exchange;
  /** The proxy requests to the target go through, for error messages; undefined when direct. */
  proxy?: ProxyContext | undefined;
  /** Time allowed for one attempt, from connecting (through a proxy too) to the last byte. */
  timeoutMs: number;
  retry: Omit<RetryPolicy, "onRetry">;
  now: () => number;
  userAgent: string;
  trace?: ((event: TraceEvent) => void) | undefined;
  onDeprecation?: ((notice: DeprecationNotice) => void) | undefined;
}

/** Sends calls to one target. */
export interface Transport {
  send: <T>(call: Call<T>) => Promise<T>;
}

const CLIENT_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "authorization",
  "content-length",
  "content-type",
  "host",
  "user-agent",
]);

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

function flatHeaders(headers: Readonly<Record<string, string | string[] | undefined>>) {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const text = headerValue(value);
    if (text !== undefined) flat[name.toLowerCase()] = text;
  }
  return flat;
}

function callHeaders(call: Call<unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers ?? {})) {
    const lower = name.toLowerCase();
    if (CLIENT_HEADERS.has(lower)) {
      throw new TypeError(`${call.operation}: the ${lower} header is set by the client`);
    }
    headers[lower] = value;
  }
  return headers;
}

/**
 * Settles as `exchange` does, or rejects with the signal's reason as soon as it aborts:
 * undici does not abort every phase on the signal (not a proxy tunnel, nodejs/undici#3944),
 * and an attempt must end at its deadline whatever phase it is in, whatever the client.
 */
function untilAborted<T>(exchange: Promise<T>, signal: AbortSignal): Promise<T> {
  // What the exchange does after the deadline is of no interest; it must not go unhandled.
  exchange.catch(() => undefined);
  const asError = (reason: unknown) =>
    reason instanceof Error ? reason : new Error(String(reason), { cause: reason });
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(asError(signal.reason));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    exchange.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(asError(error));
      },
    );
  });
}

/** Whether the caller gave the call up (a function: an attempt's await may change it). */
function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}

/** The error a call given up by its caller rejects with: not a failure of the call, never retried. */
function givenUp(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error("the call was given up", { cause: reason });
}

/** Builds the transport for one target. */
export function createTransport(options: TransportOptions): Transport {
  const { target, exchange, proxy, timeoutMs, trace, onDeprecation } = options;
  const { baseUrl, apiKey } = target;
  const errorTarget = describeTarget(target);
  // Should a server ever echo the key back, the trace still never shows it. The key is
  // matched as a whole token, so a short key does not mangle words that contain it.
  const keyToken = new RegExp(
    `(?<![\\w.~+/=-])${apiKey.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w.~+/=-])`,
    "g",
  );
  const redact = (text: string) => text.replace(keyToken, "[redacted]");
  const via = proxy === undefined ? "" : ` via proxy ${proxy.address}`;

  async function attempt<T>(call: Call<T>, url: string, attemptNumber: number): Promise<T> {
    const body =
      call.body === undefined || typeof call.body === "string"
        ? call.body
        : JSON.stringify(call.body);
    const headers: Record<string, string> = {
      ...callHeaders(call),
      accept: "application/json",
      "user-agent": options.userAgent,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    };
    trace?.({
      kind: "request",
      attempt: attemptNumber,
      method: call.method,
      url,
      headers: { ...headers, authorization: "Bearer [redacted]" },
      body,
    });
    if (call.signal !== undefined && isAborted(call.signal)) throw givenUp(call.signal);
    const started = options.now();
    const attemptMs = timeoutMs + (call.waitMs ?? 0);
    const deadline = AbortSignal.timeout(attemptMs);
    const signal = call.signal === undefined ? deadline : AbortSignal.any([deadline, call.signal]);
    let status: number;
    let responseHeaders: Record<string, string>;
    let text: string;
    try {
      const answer = await untilAborted(
        exchange(url, {
          method: call.method,
          headers: { ...headers, authorization: `Bearer ${apiKey}` },
          body,
          signal,
          timeoutMs: attemptMs,
        }),
        signal,
      );
      ({ status, text } = answer);
      responseHeaders = flatHeaders(answer.headers);
    } catch (error) {
      if (call.signal !== undefined && isAborted(call.signal)) throw givenUp(call.signal);
      const failure = describeNetworkFailure(error, deadline.aborted, attemptMs);
      trace?.({
        kind: "failure",
        method: call.method,
        url,
        message: failure.message,
        elapsedMs: options.now() - started,
      });
      const message =
        failure.failure === "timeout"
          ? `${call.method} ${url}${via} timed out: ${failure.message}`
          : `cannot reach ${url}${via}: ${failure.message}`;
      throw new FailedAttempt(
        new NetworkError({
          failure: failure.failure,
          code: failure.code,
          message,
          method: call.method,
          url,
          attempts: attemptNumber,
          target: errorTarget,
          proxy,
        }),
        // The same certificate, or the same plain HTTP server, would fail the same way again.
        !LASTING_NETWORK_FAILURES.has(failure.failure),
      );
    }
    trace?.({
      kind: "response",
      method: call.method,
      url,
      status,
      headers: Object.fromEntries(
        Object.entries(responseHeaders).map(([name, value]) => [name, redact(value)]),
      ),
      body: redact(text),
      elapsedMs: options.now() - started,
    });
    const deprecation = responseHeaders.deprecation;
    const sunset = responseHeaders.sunset;
    if (deprecation !== undefined || sunset !== undefined) {
      onDeprecation?.({ method: call.method, url, deprecation, sunset });
    }
    if (status >= 200 && status < 300) {
      return decodeSuccess(call, url, text, { status, headers: responseHeaders });
    }
    throw failedStatus(call, url, status, text, responseHeaders, attemptNumber);
  }

  function decodeSuccess<T>(call: Call<T>, url: string, text: string, response: ResponseInfo): T {
    try {
      return call.decode(parseJson(text), response);
    } catch (error) {
      if (!(error instanceof ShapeError)) throw error;
      throw new FailedAttempt(
        new MalformedResponseError({
          message: `unexpected response from ${call.method} ${url}: ${error.message}`,
          method: call.method,
          url,
          target: errorTarget,
        }),
        false,
      );
    }
  }

  function failedStatus(
    call: Call<unknown>,
    url: string,
    status: number,
    text: string,
    headers: ResponseHeaders,
    attemptNumber: number,
  ): FailedAttempt {
    const body = decodeErrorBody(text);
    const reason = reasonPhrase(status) ?? "error";
    const location = status >= 300 && status < 400 ? headers.location : undefined;
    // Every error a petstore server sends has an Error body; a 404 without one is another's.
    const answered =
      status === 404 && body?.code === undefined
        ? `the server answered ${status} ${reason} without an Error body: it does not look like a petstore server`
        : `the server answered ${status} ${reason}`;
    const error = new ApiError({
      status,
      code: body?.code,
      message:
        body?.message ??
        (location === undefined
          ? answered
          : `the server answered ${status} ${reason}, redirecting to ${redact(location)}`),
      operation: call.operation,
      method: call.method,
      url,
      attempts: attemptNumber,
      location: location === undefined ? undefined : redact(location),
      etag: headers.etag,
      target: errorTarget,
    });
    const retryAfter = parseRetryAfter(headers["retry-after"], options.now());
    const retryable = RETRYABLE_STATUSES.has(status);
    if (call.decodeError === undefined || body === undefined) {
      return new FailedAttempt(error, retryable, retryAfter);
    }
    let failure: ClientFailure;
    try {
      failure = call.decodeError(error, parseJson(text), headers);
    } catch (decodeFailure) {
      if (!(decodeFailure instanceof ShapeError)) throw decodeFailure;
      failure = new MalformedResponseError({
        message: `unexpected response from ${call.method} ${url} (${status}): ${decodeFailure.message}`,
        method: call.method,
        url,
        target: errorTarget,
      });
    }
    return new FailedAttempt(failure, retryable, retryAfter);
  }

  return {
    // Retries resend the same call, headers included: an Idempotency-Key stays the same.
    send: <T>(call: Call<T>): Promise<T> => {
      const url = `${baseUrl}${call.path}`;
      return withRetries((attemptNumber) => attempt(call, url, attemptNumber), {
        ...options.retry,
        onRetry: (info) => trace?.({ kind: "retry", ...info }),
      });
    },
  };
}
