/**
 * Reads what is left of a request body before the answer goes out. Fastify answers a body
 * over the limit (413) without reading the rest of it, and closes the connection (it sets
 * `Connection: close` on every body-parsing error); closing a socket with unread data makes
 * the kernel send a reset, and a client still writing its body (most write it all before
 * reading) sees ECONNRESET or EPIPE instead of the answer. Reading the rest first, up to a
 * bound, lets it see the answer.
 */
import type { IncomingMessage } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";

/** The most a rejected body is read for: past it, the connection is closed as before. */
export const DRAIN_LIMIT_BYTES = 1024 * 1024;
/** The longest a rejected body is read for, so a slow sender cannot hold the answer. */
export const DRAIN_TIMEOUT_MS = 5_000;

/**
 * onSend hook: before an answer that closes the connection, waits until the request body has
 * been read to its end, within the bounds. (An answer that keeps the connection open needs
 * nothing: Node reads and discards the rest of the body itself.) Callback style, so the
 * common case costs no promise.
 */
export function drainRequestBody(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: null, payload: unknown) => void,
): void {
  const raw = request.raw;
  const unread =
    reply.getHeader("connection") === "close" &&
    !(raw.complete || raw.readableEnded || raw.destroyed) &&
    !(Number(raw.headers["content-length"]) > DRAIN_LIMIT_BYTES);
  if (!unread) {
    done(null, payload);
    return;
  }
  void drain(raw, DRAIN_LIMIT_BYTES, DRAIN_TIMEOUT_MS).then(() => {
    done(null, payload);
  });
}

/** Reads and discards `raw` until it ends, fails, passes `limit` bytes or `timeoutMs`. */
function drain(raw: IncomingMessage, limit: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    let received = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off("data", onData).off("end", done).off("error", done).off("close", done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) done();
    };
    const timer = setTimeout(done, timeoutMs);
    raw.on("data", onData).once("end", done).once("error", done).once("close", done);
    raw.resume();
  });
}
