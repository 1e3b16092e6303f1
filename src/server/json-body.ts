/**
 * The server's one reader of JSON request bodies (PATCH's, a batch's): numbers exact, so a
 * fraction is never rounded into an integer a check then passes (`2147483647.0000001`), and a
 * name said twice in one object refused rather than one of the two chosen (api/exact-json.ts).
 */
import type { FastifyInstance } from "fastify";
import { ERROR_CODES } from "../api/error-codes.js";
import { parseRequestJson, RepeatedNameError } from "../api/exact-json.js";
import { HttpError } from "./http-error.js";

/** Reads `application/json` bodies of `app`'s routes with parseRequestJson, up to `bodyLimit`. */
export function readJsonBodies(app: FastifyInstance, bodyLimit?: number): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser(
    "application/json",
    { parseAs: "string", ...(bodyLimit === undefined ? {} : { bodyLimit }) },
    (_request, body, done) => {
      try {
        done(null, parseRequestJson(body as string));
      } catch (error) {
        done(
          error instanceof RepeatedNameError
            ? new HttpError(400, ERROR_CODES.invalidBody, error.message)
            : error instanceof RangeError
              ? new HttpError(400, ERROR_CODES.invalidBody, "the body is nested too deeply")
              : new HttpError(400, ERROR_CODES.invalidJson, "the body is not valid JSON"),
        );
      }
    },
  );
}
