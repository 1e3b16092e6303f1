/**
 * The id of a request: the caller's `X-Request-Id` when it is well formed (so a proxy's or a
 * client's id finds the request in our logs and history), else a new UUID. The server echoes
 * it in its answer's `X-Request-Id` and keeps it in the history records the request makes.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** 1 to 128 characters a log search and a shell handle unquoted: letters, digits, `._~:/+=@-`. */
const WELL_FORMED = /^[A-Za-z0-9._~:/+=@-]{1,128}$/;

export function isWellFormedRequestId(value: string): boolean {
  return WELL_FORMED.test(value);
}

/** Fastify's genReqId: the incoming id when well formed, else a new UUID; never an error. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers["x-request-id"];
  return typeof incoming === "string" && isWellFormedRequestId(incoming) ? incoming : randomUUID();
}
