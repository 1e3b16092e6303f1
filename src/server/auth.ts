/** Bearer authentication and scopes for everything under /v1 (RFC 6750 challenges). */
import type { FastifyRequest } from "fastify";
import { ERROR_CODES } from "../api/error-codes.js";
import type { ApiKey } from "../api/keys-file.js";
import { HttpError } from "./http-error.js";

declare module "fastify" {
  interface FastifyRequest {
    /**
     * Who is calling, for per-key records (idempotency keys): the SHA-256 (hex) of the API
     * key that authenticated the request; "" before authentication. Never logged.
     */
    callerKeyDigest: string;
    /**
     * The name of the API key that authenticated the request (from the keys file, or key-N);
     * "" before authentication. Logged with the request, unlike the key and its digest.
     */
    callerKeyName: string;
  }
}

const REALM = 'Bearer realm="petstore"';

/** Methods a `read` key may use: those that change nothing. */
const READ_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/**
 * Builds a hook that rejects requests without one of the accepted keys (401), and requests a
 * key's scope does not allow (403: a read key on anything but GET or HEAD). It records the
 * accepted key as `request.callerKeyDigest` and `request.callerKeyName` (the app decorates
 * requests with both).
 */
export function bearerAuth(acceptedKey: (key: string) => ApiKey | undefined) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization;
    if (header === undefined || header === "") {
      throw new HttpError(
        401,
        ERROR_CODES.unauthorized,
        "missing API key: send Authorization: Bearer <API_KEY>",
        {
          "www-authenticate": REALM,
        },
      );
    }
    const presented = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    const key = presented === undefined ? undefined : acceptedKey(presented);
    if (key === undefined) {
      throw new HttpError(401, ERROR_CODES.unauthorized, "invalid API key", {
        "www-authenticate": `${REALM}, error="invalid_token"`,
      });
    }
    request.callerKeyDigest = key.digestHex;
    request.callerKeyName = key.name;
    if (key.scope === "read" && !READ_METHODS.has(request.method)) {
      throw new HttpError(
        403,
        ERROR_CODES.forbidden,
        `the API key ${key.name} is read-only (scope read): it cannot ${request.method}; nothing was changed`,
      );
    }
  };
}
