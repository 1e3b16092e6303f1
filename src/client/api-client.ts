/**
 * The HTTP API client: typed calls of the spec's operations over one undici dispatcher,
 * with a per-attempt timeout, retries, lossless parsing and typed errors. It never prints:
 * it reports through the `trace` and `onDeprecation` callbacks.
 */
import { STATUS_CODES } from "node:http";
import { request, type Dispatcher } from "undici";
import type { InventoryItem, InventoryUpdate, Order, Pet } from "../api/types.js";
import { ApiError, MalformedResponseError, NetworkError, type CliError } from "../errors.js";
import {
  decodeErrorBody,
  decodeInventoryItem,
  decodeInventoryList,
  decodeOrderList,
  decodePet,
  parseJson,
  ShapeError,
} from "./decode.js";
import { describeNetworkFailure } from "./network-failure.js";
import { FailedAttempt, parseRetryAfter, RETRYABLE_STATUSES, withRetries } from "./retry.js";
import type { RetryPolicy } from "./retry.js";

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

export interface ApiClientOptions {
  /** Base URL including `/v1`, without a trailing slash. */
  baseUrl: string;
  apiKey: string;
  dispatcher: Dispatcher;
  /** Time allowed for one attempt, from connecting to the last byte of the body. */
  timeoutMs: number;
  retry: Omit<RetryPolicy, "onRetry">;
  now: () => number;
  userAgent: string;
  trace?: ((event: TraceEvent) => void) | undefined;
  onDeprecation?: ((notice: DeprecationNotice) => void) | undefined;
}

/** The operations of the service the CLI uses. */
export interface ApiClient {
  listInventory(): Promise<InventoryItem[]>;
  updateInventory(petId: bigint, quantity: number): Promise<InventoryItem>;
  getPet(petId: bigint): Promise<Pet>;
  listOrders(): Promise<Order[]>;
}

interface Call<T> {
  method: "GET" | "PATCH";
  path: string;
  body?: InventoryUpdate;
  decode: (value: unknown) => T;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

function flatHeaders(headers: Readonly<Record<string, string | string[] | undefined>>) {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const text = headerValue(value);
    if (text !== undefined) flat[name] = text;
  }
  return flat;
}

/** Builds a client for one target. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const { baseUrl, apiKey, dispatcher, timeoutMs, trace, onDeprecation } = options;
  // Should a server ever echo the key back, the trace still never shows it. The key is
  // matched as a whole token, so a short key does not mangle words that contain it.
  const keyToken = new RegExp(
    `(?<![\\w.~+/=-])${apiKey.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w.~+/=-])`,
    "g",
  );
  const redact = (text: string) => text.replace(keyToken, "[redacted]");

  async function attempt<T>(call: Call<T>, url: string, attemptNumber: number): Promise<T> {
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const headers: Record<string, string> = {
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
    const started = options.now();
    const signal = AbortSignal.timeout(timeoutMs);
    let status: number;
    let responseHeaders: Record<string, string>;
    let text: string;
    try {
      const response = await request(url, {
        method: call.method,
        headers: { ...headers, authorization: `Bearer ${apiKey}` },
        body: body ?? null,
        dispatcher,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      responseHeaders = flatHeaders(response.headers);
      text = await response.body.text();
    } catch (error) {
      const failure = describeNetworkFailure(error, signal.aborted, timeoutMs);
      trace?.({
        kind: "failure",
        method: call.method,
        url,
        message: failure.message,
        elapsedMs: options.now() - started,
      });
      const message =
        failure.failure === "timeout"
          ? `${call.method} ${url} timed out: ${failure.message}`
          : `cannot reach ${url}: ${failure.message}`;
      throw new FailedAttempt(
        new NetworkError({
          failure: failure.failure,
          message,
          method: call.method,
          url,
          attempts: attemptNumber,
        }),
        true,
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
    if (status >= 200 && status < 300) return decodeSuccess(call, url, text);
    throw failedStatus(call.method, url, status, text, responseHeaders, attemptNumber);
  }

  function decodeSuccess<T>(call: Call<T>, url: string, text: string): T {
    try {
      return call.decode(parseJson(text));
    } catch (error) {
      if (!(error instanceof ShapeError)) throw error;
      throw new FailedAttempt(
        new MalformedResponseError({
          message: `unexpected response from ${call.method} ${url}: ${error.message}`,
          method: call.method,
          url,
        }),
        false,
      );
    }
  }

  function failedStatus(
    method: string,
    url: string,
    status: number,
    text: string,
    headers: Readonly<Record<string, string>>,
    attemptNumber: number,
  ): FailedAttempt {
    const body = decodeErrorBody(text);
    const reason = STATUS_CODES[status] ?? "error";
    const failure: CliError = new ApiError({
      status,
      code: body?.code,
      message: body?.message ?? `the server answered ${status} ${reason}`,
      method,
      url,
      attempts: attemptNumber,
    });
    const retryAfter = parseRetryAfter(headers["retry-after"], options.now());
    return new FailedAttempt(failure, RETRYABLE_STATUSES.has(status), retryAfter);
  }

  // Every call is safe to repeat: PATCH sets an absolute quantity, so a retry after a lost
  // response cannot double-apply.
  function perform<T>(call: Call<T>): Promise<T> {
    const url = `${baseUrl}${call.path}`;
    return withRetries((attemptNumber) => attempt(call, url, attemptNumber), {
      ...options.retry,
      onRetry: (info) => trace?.({ kind: "retry", ...info }),
    });
  }

  return {
    listInventory: () =>
      perform({ method: "GET", path: "/inventory", decode: decodeInventoryList }),
    updateInventory: (petId, quantity) =>
      perform({
        method: "PATCH",
        path: `/inventory/${petId.toString()}`,
        body: { quantity },
        decode: (value) => decodeInventoryItem(value),
      }),
    getPet: (petId) =>
      perform({ method: "GET", path: `/pets/${petId.toString()}`, decode: decodePet }),
    listOrders: () => perform({ method: "GET", path: "/store/orders", decode: decodeOrderList }),
  };
}
