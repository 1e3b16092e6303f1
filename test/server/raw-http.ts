/** Raw HTTP/1.1 over TCP, for requests no HTTP client would send. */
import { connect, type Socket } from "node:net";

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

/** How long an answer, and the close its `Connection: close` promises, may take: a failure bound. */
const ANSWER_WITHIN_MS = 5_000;

/**
 * Sends `request` as bytes and reads one response. An answer that says `Connection: close` is
 * followed by the server closing the connection: that close is waited for (failing after 5 s
 * without it), so `closed` is what the server did. Any other answer resolves once complete,
 * `closed` saying whether the server had closed the connection by then (a kept-alive
 * connection stays open; nothing here waits to see that it does).
 */
export function rawRequest(port: number, request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const toHead = request.toString("latin1").startsWith("HEAD ");
    let answer: RawResponse | undefined;
    const failTimer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          answer === undefined
            ? `no complete answer within ${ANSWER_WITHIN_MS} ms; got ${JSON.stringify(received)}`
            : `the answer said Connection: close, but the connection was still open ${ANSWER_WITHIN_MS} ms later`,
        ),
      );
    }, ANSWER_WITHIN_MS);
    let finished = false;
    const finish = (closed: boolean) => {
      if (finished) return;
      finished = true;
      clearTimeout(failTimer);
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
      if (answer !== undefined) return;
      answer = parseRawResponse(received, false, toHead);
      if (answer !== undefined && !/\bclose\b/i.test(answer.headers.connection ?? "")) {
        finish(socket.readableEnded);
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
