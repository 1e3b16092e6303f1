/** Answers 405 with an `Allow` header for the methods a path does not support. */
import type { FastifyInstance } from "fastify";
import { ERROR_CODES } from "../../api/error-codes.js";
import { HttpError } from "../http-error.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Registers a 405 route for every method of METHODS that `allowed` lacks. */
export function rejectOtherMethods(
  app: FastifyInstance,
  url: string,
  allowed: readonly string[],
): void {
  const allow = allowed.includes("GET") ? [...allowed, "HEAD"] : [...allowed];
  app.route({
    method: METHODS.filter((method) => !allowed.includes(method)),
    url,
    handler: (request) => {
      throw new HttpError(
        405,
        ERROR_CODES.methodNotAllowed,
        `method ${request.method} is not allowed here; use ${allow.join(", ")}`,
        { allow: allow.join(", ") },
      );
    },
  });
}
