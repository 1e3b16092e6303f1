/** Turns what the HTTP client (node:http, or undici through a proxy) throws below HTTP into words. */
import type { NetworkFailure } from "./errors.js";
import { reasonPhrase } from "./reason-phrase.js";

const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

/**
 * Certificate verification failures (OpenSSL's X509 errors as Node names them, and Node's
 * host name check). Another attempt meets the same certificate, so they are not retried.
 */
export const CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_DECRYPT_CERT_SIGNATURE",
  "UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY",
  "CERT_SIGNATURE_FAILURE",
  "CERT_NOT_YET_VALID",
  "CERT_HAS_EXPIRED",
  "ERROR_IN_CERT_NOT_BEFORE_FIELD",
  "ERROR_IN_CERT_NOT_AFTER_FIELD",
  "CERT_CHAIN_TOO_LONG",
  "CERT_REVOKED",
  "INVALID_CA",
  "PATH_LENGTH_EXCEEDED",
  "INVALID_PURPOSE",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "HOSTNAME_MISMATCH",
  "ERR_TLS_CERT_ALTNAME_INVALID",
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

/**
 * What OpenSSL says when the first bytes of an answer to a TLS client hello are not TLS: a
 * plain HTTP server's `HTTP/1.1 400 Bad Request`. Node throws it as EPROTO (a failed write)
 * with these words in the message, or, as a handshake error, with this code.
 */
const PLAIN_HTTP_CODE = "ERR_SSL_WRONG_VERSION_NUMBER";
const PLAIN_HTTP_WORDS = /\bwrong version number\b/;

/** The errors along the chain: the error, a dual-stack connect's first, their causes. */
function errorChain(error: unknown): object[] {
  if (typeof error !== "object" || error === null) return [];
  // Node reports a failed dual-stack connect as an AggregateError of per-address errors.
  const inner =
    error instanceof AggregateError
      ? errorChain(error.errors[0])
      : "cause" in error
        ? errorChain(error.cause)
        : [];
  return [error, ...inner];
}

/** Whether a TLS handshake met a server that answered in plain HTTP. */
function isPlainHttpAnswer(error: unknown): boolean {
  return errorChain(error).some(
    (link) =>
      ("code" in link && link.code === PLAIN_HTTP_CODE) ||
      (link instanceof Error && PLAIN_HTTP_WORDS.test(link.message)),
  );
}

/** The error codes along the chain: the error's own, then a dual-stack connect's first, then its cause's. */
function errorCodes(error: unknown): string[] {
  return errorChain(error).flatMap((link) =>
    "code" in link && typeof link.code === "string" ? [link.code] : [],
  );
}

function messageOf(error: unknown): string | undefined {
  return error instanceof Error && error.message !== "" ? error.message : undefined;
}

/** What a failed attempt was, in words, with the code behind it. */
export interface NetworkFailureDescription {
  failure: NetworkFailure;
  code?: string | undefined;
  message: string;
}

/**
 * Classifies a failed request as unreachable, timed out, refused for its certificate, or an
 * https request answered in plain HTTP, with a message naming the cause. `aborted` says the
 * attempt's own deadline passed.
 */
export function describeNetworkFailure(
  error: unknown,
  aborted: boolean,
  timeoutMs: number,
): NetworkFailureDescription {
  const codes = errorCodes(error);
  if (aborted || codes.some((code) => TIMEOUT_CODES.has(code))) {
    return { failure: "timeout", message: `no answer within ${timeoutMs} ms` };
  }
  const certificate = codes.find((code) => CERTIFICATE_CODES.has(code));
  if (certificate !== undefined) {
    const reason = certificateReason(error, certificate);
    return {
      failure: "untrusted-certificate",
      code: certificate,
      message: `the server's certificate is not trusted: ${reason} (${certificate})`,
    };
  }
  if (isPlainHttpAnswer(error)) {
    return {
      failure: "plain-http",
      code: codes[0],
      message: "the server there speaks plain HTTP, not HTTPS (TLS: wrong version number)",
    };
  }
  const detail = messageOf(error) ?? "network error";
  // undici's words when a proxy refuses the tunnel: "Proxy response (502) !== 200 when HTTP Tunneling".
  const proxyStatus = /^Proxy response \((\d{3})\)/.exec(detail)?.[1];
  if (proxyStatus !== undefined) {
    const reason = reasonPhrase(Number(proxyStatus)) ?? "error";
    return {
      failure: "unreachable",
      message: `the proxy answered ${proxyStatus} ${reason} to CONNECT`,
    };
  }
  const code = codes[0];
  if (code === undefined) return { failure: "unreachable", message: detail };
  return { failure: "unreachable", code, message: `${EXPLANATIONS[code] ?? detail} (${code})` };
}

function certificateReason(error: unknown, code: string): string {
  // Node's own message says why ("self-signed certificate", "certificate has expired", a
  // host that is not in the certificate's names): the first error in the chain that has one.
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if ("code" in current && current.code === code && current.message !== "") {
      return current.message;
    }
  }
  return messageOf(error) ?? "verification failed";
}
