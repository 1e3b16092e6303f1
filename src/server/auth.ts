/** Bearer authentication for everything under /v1 (RFC 6750 challenges). */
import { createHash } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { ERROR_CODES } from "../api/error-codes.js";
import { HttpError } from "./http-error.js";

declare module "fastify" {
  interface FastifyRequest {
    /**
     * Who is calling, for per-key records (idempotency keys): the SHA-256 (hex) of the API
     * key that authenticated the request; "" before authentication. Never logged.
     */
    callerKeyDigest: string;
  }
}

const REALM = 'Bearer realm="petstore"';

/**
 * Builds a hook that rejects requests without one of the accepted keys, and records the
 * accepted key's digest as `request.callerKeyDigest` (the app decorates requests with it).
 */
export function bearerAuth(isAcceptedKey: (key: string) => boolean) {
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
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match?.[1] || !isAcceptedKey(match[1])) {
      throw new HttpError(401, ERROR_CODES.unauthorized, "invalid API key", {
        "www-authenticate": `${REALM}, error="invalid_token"`,
      });
    }
    request.callerKeyDigest = createHash("sha256").update(match[1]).digest("hex");
  };
}
