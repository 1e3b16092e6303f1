/** Answers 405 with an `Allow` header for the methods a path does not support. */
import type { FastifyInstance } from "fastify";
import { ERROR_CODES } from "../../api/error-codes.js";
import { HttpError } from "../http-error.js";

/**
 * Registers a 405 route for every method the app routes (every method Node parses, OPTIONS
 * and TRACE included) that `allowed` lacks; a GET path also allows HEAD.
 */
export function rejectOtherMethods(
  app: FastifyInstance,
  url: string,
  allowed: readonly string[],
): void {
  const allow = allowed.includes("GET") ? [...allowed, "HEAD"] : [...allowed];
  const allowHeader = allow.join(", ");
  app.route({
    method: app.supportedMethods.filter((method) => !allow.includes(method)),
    url,
    handler: (request) => {
      throw new HttpError(
        405,
        ERROR_CODES.methodNotAllowed,
        `method ${request.method} is not allowed here; use ${allowHeader}`,
        { allow: allowHeader },
      );
    },
  });
}
