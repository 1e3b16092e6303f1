/**
 * Answers for requests that never reach a route: ones Node's HTTP parser rejects, and an
 * `Expect` it cannot meet. They get the same `{code, message, status}` body as every other
 * error, with `Connection: close`, since the connection cannot be trusted after them.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { ERROR_CODES } from "../api/error-codes.js";
import { HttpError } from "./http-error.js";

/** What a parser error code means for the client. */
function describeClientError(error: NodeJS.ErrnoException & { reason?: unknown }): HttpError {
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new HttpError(408, ERROR_CODES.requestTimeout, "the request took too long to arrive");
    case "HPE_HEADER_OVERFLOW":
      return new HttpError(
        431,
        ERROR_CODES.headersTooLarge,
        "the request headers are larger than 16 KiB",
      );
    default: {
      // llhttp's reasons are fixed phrases ("Invalid method encountered"); the request's own
      // bytes are never echoed.
      const reason = typeof error.reason === "string" ? `: ${error.reason}` : "";
      return new HttpError(
        400,
        ERROR_CODES.malformedRequest,
        `the request is not valid HTTP/1.1 (${error.code ?? "parse error"})${reason}`,
      );
    }
  }
}

/** The raw bytes of an error response, its headers included, that closes the connection. */
function rawErrorResponse(error: HttpError): string {
  const body = JSON.stringify(error.toBody());
  const headers = Object.entries(error.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return (
    `HTTP/1.1 ${error.statusCode} ${STATUS_CODES[error.statusCode] ?? "Error"}\r\n` +
    headers.join("") +
    "Content-Type: application/json; charset=utf-8\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    "Connection: close\r\n\r\n" +
    body
  );
}

/**
 * Fastify's `clientErrorHandler`: Node's parser gave up on the bytes of a request. Writes the
 * Error body and closes the socket once it is sent.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has no one left to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  answerOnSocket(socket, describeClientError(error));
}

/** Writes the Error response on a raw socket and closes it once sent. */
function answerOnSocket(socket: Duplex, error: HttpError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawErrorResponse(error), () => socket.destroy());
}

/**
 * A listener of Node's `connect` event: this server is no proxy, so CONNECT is 405, with the
 * `Allow` every 405 carries (`allowAt` gives it for the request's target), and the connection
 * closes.
 */
export function answerConnect(
  allowAt: (target: string) => string,
): (request: IncomingMessage, socket: Duplex) => void {
  return (request, socket) => {
    const allow = allowAt(request.url ?? "");
    answerOnSocket(
      socket,
      new HttpError(
        405,
        ERROR_CODES.methodNotAllowed,
        `CONNECT is not supported: this is no proxy${allow === "" ? "" : `; use ${allow}`}`,
        { allow },
      ),
    );
  };
}

/** Node's `checkExpectation` event: an `Expect` other than `100-continue` is 417. */
export function answerUnmetExpectation(request: IncomingMessage, response: ServerResponse): void {
  const error = new HttpError(
    417,
    ERROR_CODES.expectationFailed,
    "the server supports no Expect but 100-continue",
  );
  const body = JSON.stringify(error.toBody());
  response.shouldKeepAlive = false;
  response.writeHead(417, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    connection: "close",
  });
  response.end(body);
  // The request's body, if any, is not read: the connection closes after the answer.
  request.resume();
}
