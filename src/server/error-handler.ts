/** Turns every error Fastify or a route raises into the decided `{code, message, status}` body. */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { ERROR_CODES } from "../api/error-codes.js";
import { HttpError } from "./http-error.js";
import { LockedOutError, serviceUnavailable, storageFull } from "./service-unavailable.js";
import { StoreBusyError } from "./store/store-busy-error.js";
import { StoreFullError } from "./store/store-full-error.js";
import { StoreUnavailableError } from "./store/store-unavailable-error.js";
import type { WriteRefusalReason, WriteRefusals } from "./write-refusals.js";

declare module "fastify" {
  interface FastifyReply {
    /** The Error body's `code` of a 4xx or 5xx answer, for the request's log line; else "". */
    errorCode: string;
  }
}

/** Maps Fastify's own error codes to ours. */
const FASTIFY_ERRORS: Readonly<Record<string, { status: number; code: string }>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: ERROR_CODES.unsupportedMediaType },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: ERROR_CODES.payloadTooLarge },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: ERROR_CODES.invalidJson },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: ERROR_CODES.invalidJson },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: ERROR_CODES.badRequest },
};

/** Converts any thrown value into the HttpError that describes the response. */
export function toHttpError(error: FastifyError | Error): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof StoreBusyError) return serviceUnavailable(`${error.message}; retry later`);
  if (error instanceof StoreUnavailableError) return databaseUnreachable(error);
  if (error instanceof StoreFullError) return storageFull();
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return new HttpError(400, ERROR_CODES.invalidBody, error.message);
  }
  const known = fastifyError.code ? FASTIFY_ERRORS[fastifyError.code] : undefined;
  if (known) return new HttpError(known.status, known.code, error.message);
  const status = fastifyError.statusCode ?? 500;
  if (status === 429) return new HttpError(429, ERROR_CODES.tooManyRequests, error.message);
  if (status >= 400 && status < 500) {
    return new HttpError(status, ERROR_CODES.badRequest, error.message);
  }
  return new HttpError(500, ERROR_CODES.internalError, "internal server error");
}

/**
 * The database is down or unreachable: 503. Its host and database are not named to callers
 * (the server's log names them); a write whose commit may have landed says so.
 */
function databaseUnreachable(error: StoreUnavailableError): HttpError {
  return serviceUnavailable(
    error.maybeCommitted
      ? "the database became unreachable while committing: the change may or may not have been made; retry with the same Idempotency-Key"
      : "the database is unreachable; nothing was changed, retry later",
  );
}

/** Why a write request was refused with a 503 (for the metric), or undefined if it was not. */
function refusalOf(error: Error, request: FastifyRequest): WriteRefusalReason | undefined {
  if (error instanceof StoreFullError) return "storage_full";
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  if (error instanceof LockedOutError) return "busy";
  if (error instanceof StoreUnavailableError) return "unavailable";
  return undefined;
}

/**
 * Logs a 5xx answer. A full disk is told once per episode (write-refusals.ts). A refusal the
 * server chose (an HttpError, such as the 503 of a write the database lock held elsewhere kept
 * out, or of shutting down; a read's StoreBusyError) is a handled condition: a warning saying
 * what was answered, without a stack. So is a database out of reach (its 503 is the answer
 * the operator's guide describes, and the warning names the database and why, which the
 * answer does not). Anything else is a fault: an error with the stack.
 */
function logServerAnswer(error: Error, httpError: HttpError, request: FastifyRequest): void {
  if (error instanceof StoreFullError) return;
  const unreachable = error instanceof StoreUnavailableError;
  if (unreachable || error instanceof HttpError || error instanceof StoreBusyError) {
    request.log.warn(
      {
        status: httpError.statusCode,
        code: httpError.code,
        reason: unreachable ? error.message : httpError.message,
        // A write whose COMMIT was sent when the connection was lost may have been made.
        ...(unreachable ? { maybeCommitted: error.maybeCommitted } : {}),
      },
      "request refused",
    );
  } else {
    request.log.error({ err: error }, "request failed");
  }
}

/** A Fastify error handler: logs 5xx answers, never leaks a fault's details, counts refused writes. */
export type ErrorHandler = (
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) => FastifyReply;

/** The app's error handler, telling `refusals` of every write it answers with a refusal. */
export function errorHandler(refusals: WriteRefusals): ErrorHandler {
  return (error, request, reply) => {
    const httpError = toHttpError(error);
    const refusal = refusalOf(error, request);
    if (refusal) refusals.refused(refusal, request.log, error.message);
    if (httpError.statusCode >= 500) logServerAnswer(error, httpError, request);
    reply.errorCode = httpError.code;
    return reply
      .code(httpError.statusCode)
      .headers(httpError.headers)
      .type("application/json; charset=utf-8")
      .send(httpError.toBody());
  };
}
