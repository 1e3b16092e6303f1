/** A proxy in front of a real server that holds writes in flight for as long as a test needs. */
import { once } from "node:events";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { closeNow, replyJson } from "./fake-server.js";

export interface HoldingProxy {
  /** Base URL ending in /v1, to give the CLI instead of the server's. */
  url: string;
  /** The writes received so far (PATCH, and POST of a batch), as "METHOD path". */
  writes: string[];
  /** How many batch requests it answered 404 itself (`withoutBatchRoute`). */
  batchesRefused(): number;
  /** Resolves when `count` writes have been received (and are held). */
  writesHeld(count: number): Promise<void>;
  /** Forwards every held write, and every later one at once. */
  release(): void;
  stop(): Promise<void>;
}

export interface HoldingProxyOptions {
  /**
   * Answer `POST /v1/inventory/batch` 404 itself, as a server that implements only the spec
   * does (not held, not recorded, never forwarded).
   */
  withoutBatchRoute?: boolean;
}

/** The 404 a server without the batch route gives it (the bundled server's unknown route). */
const NO_BATCH_ROUTE_BODY =
  '{"code":"not_found","message":"Route POST:/v1/inventory/batch not found","status":404}';

/**
 * An HTTP proxy in front of a real server that forwards GETs at once and holds each write
 * (PATCH, or POST of a batch) until `release()`: a write that stays in flight for exactly as
 * long as a test needs. With `withoutBatchRoute` it stands for a server without the batch
 * endpoint (one that implements only the spec); released at once, it just forwards.
 */
export async function startHoldingProxy(
  target: string,
  options: HoldingProxyOptions = {},
): Promise<HoldingProxy> {
  const upstream = new URL(target);
  const writes: string[] = [];
  const held: (() => void)[] = [];
  let released = false;
  let refused = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const forward = (request: IncomingMessage, body: Buffer, response: ServerResponse) => {
    const outgoing = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on("error", () => response.destroy());
    outgoing.end(body);
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const isBatch = request.method === "POST" && request.url === "/v1/inventory/batch";
      if (isBatch && options.withoutBatchRoute === true) {
        refused += 1;
        replyJson(response, 404, NO_BATCH_ROUTE_BODY);
        return;
      }
      const isWrite = request.method === "PATCH" || isBatch;
      if (isWrite) writes.push(`${request.method ?? ""} ${request.url ?? ""}`);
      if (!isWrite || released) {
        forward(request, body, response);
        return;
      }
      held.push(() => {
        forward(request, body, response);
      });
      for (const waiter of waiters.filter((w) => writes.length >= w.count)) waiter.resolve();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    writes,
    batchesRefused: () => refused,
    writesHeld: (count) =>
      writes.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    release() {
      released = true;
      for (const send of held.splice(0)) send();
    },
    stop: () => closeNow(server),
  };
}
