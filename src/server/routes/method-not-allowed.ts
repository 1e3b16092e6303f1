/** Answers 405 with an `Allow` header for the methods a path does not support. */
import type { FastifyInstance } from "fastify";
import { ERROR_CODES } from "../../api/error-codes.js";
import { HttpError } from "../http-error.js";

/** A path's pattern (prefix included) split at `/`, and what its 405s send as `Allow`. */
interface PathMethods {
  segments: readonly string[];
  allow: string;
}

/** The paths `rejectOtherMethods` registered, by the HTTP server every plugin of an app shares. */
const pathsOfServer = new WeakMap<object, PathMethods[]>();

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
  const paths = pathsOfServer.get(app.server) ?? [];
  paths.push({ segments: `${app.prefix}${url}`.split("/"), allow: allowHeader });
  pathsOfServer.set(app.server, paths);
}

/**
 * The `Allow` value for a request target that never reaches the router (CONNECT): the methods
 * of its path, as that path's 405s name them, or "" (no method, RFC 9110, 10.2.1) for a target
 * that is no path of this app, such as CONNECT's usual `host:port`. A `:param` segment matches
 * any non-empty segment, as in the router.
 */
export function allowAt(app: FastifyInstance, target: string): string {
  const segments = (target.split("?", 1)[0] ?? target).split("/");
  const known = pathsOfServer.get(app.server)?.find(
    (path) =>
      path.segments.length === segments.length &&
      path.segments.every((pattern, index) => {
        const segment = segments[index] ?? "";
        return pattern.startsWith(":") ? segment !== "" : pattern === segment;
      }),
  );
  return known?.allow ?? "";
}
