/** Raw HTTP/1.1 over TCP, for requests no HTTP client would send. */
import { connect, type Socket } from "node:net";
import { eventually } from "../support/eventually.js";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after the answer. */
  closed: boolean;
}

/**
 * Parses the first response in `text`: the head, and a body of Content-Length bytes unless it
 * answers a HEAD request.
 */
export function parseRawResponse(
  text: string,
  closed: boolean,
  toHead = false,
): RawResponse | undefined {
  const headEnd = text.indexOf("\r\n\r\n");
  if (headEnd < 0) return undefined;
  const [statusLine = "", ...lines] = text.slice(0, headEnd).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = toHead ? 0 : Number(headers["content-length"] ?? 0);
  const body = Buffer.from(text.slice(headEnd + 4), "latin1");
  if (body.length < length) return undefined;
  return {
    status: Number(statusLine.split(" ")[1]),
    headers,
    body: body.subarray(0, length).toString("utf8"),
    closed,
  };
}

/**
 * Sends `request` as bytes and reads one response. Waits up to `closeWithinMs` after the
 * answer to see whether the server closes the connection.
 */
export function rawRequest(
  port: number,
  request: string | Buffer,
  closeWithinMs = 300,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const toHead = request.toString("latin1").startsWith("HEAD ");
    let answer: RawResponse | undefined;
    let timer: NodeJS.Timeout | undefined;
    const failTimer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within 5 s; got ${JSON.stringify(received)}`));
    }, 5_000);
    const finish = (closed: boolean) => {
      clearTimeout(failTimer);
      clearTimeout(timer);
      socket.destroy();
      const parsed = answer ?? parseRawResponse(received, closed, toHead);
      if (parsed === undefined) {
        reject(new Error(`connection closed without an answer: ${JSON.stringify(received)}`));
      } else {
        resolve({ ...parsed, closed });
      }
    };
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      answer ??= parseRawResponse(received, false, toHead);
      if (answer !== undefined && timer === undefined) {
        timer = setTimeout(() => {
          finish(false);
        }, closeWithinMs);
      }
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      finish(true);
    });
    socket.write(request);
  });
}

/** A connection kept open, for requests sent a part at a time (a head now, its end later). */
export interface RawConnection {
  socket: Socket;
  /** Everything received so far, as latin1. */
  received: () => string;
  closed: Promise<void>;
}

export function rawConnection(port: number): RawConnection {
  const socket = connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (chunk) => (received += chunk.toString("latin1")));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => {
    socket.on("close", () => {
      resolve();
    });
  });
  return { socket, received: () => received, closed };
}

/**
 * Waits until `condition` holds; fails after 10 s. Only an alias of test/support/eventually.ts
 * for the files that still import it here (shutdown.test.ts, e2e/server-log.test.ts): new
 * waits call `eventually`, naming what they wait for.
 */
export function until(condition: () => boolean): Promise<void> {
  return eventually("a condition on a raw connection", condition, { intervalMs: 5 });
}
