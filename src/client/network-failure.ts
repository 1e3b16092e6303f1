/** Turns what undici throws below HTTP into a short, actionable description. */
import type { NetworkFailure } from "../errors.js";

const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

const EXPLANATIONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by the server",
  UND_ERR_SOCKET: "the server closed the connection",
  ENOTFOUND: "host name not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EPIPE: "connection closed while sending",
};

function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  if ("code" in error && typeof error.code === "string") return error.code;
  // Node reports a failed dual-stack connect as an AggregateError of per-address errors.
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  if ("cause" in error) return errorCode(error.cause);
  return undefined;
}

/** Classifies a failed request as unreachable or timed out, with a message naming the cause. */
export function describeNetworkFailure(
  error: unknown,
  aborted: boolean,
  timeoutMs: number,
): { failure: NetworkFailure; message: string } {
  const code = errorCode(error);
  if (aborted || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return { failure: "timeout", message: `no answer within ${timeoutMs} ms` };
  }
  const detail = error instanceof Error && error.message !== "" ? error.message : "network error";
  if (code === undefined) return { failure: "unreachable", message: detail };
  return { failure: "unreachable", message: `${EXPLANATIONS[code] ?? detail} (${code})` };
}
