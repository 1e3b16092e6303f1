/** A throwaway HTTP server for faults the bundled server never produces. */
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeServer {
  /** Base URL ending in /v1. */
  url: string;
  /** Requests received so far, as "METHOD path". */
  requests: string[];
  stop(): Promise<void>;
}

/**
 * A throwaway HTTP server for behaviour the bundled server never shows (a 400 the CLI cannot
 * provoke, a 503, a server that never answers): `handle` writes each response.
 */
export async function startFakeServer(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<FakeServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method ?? ""} ${request.url ?? ""}`);
    handle(request, response);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    stop: () => closeNow(server),
  };
}

/** Closes `server` and every connection to it at once, in flight or idle. */
export async function closeNow(server: Server): Promise<void> {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
}

/** Sends a JSON response with an exact body text. */
export function replyJson(
  response: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(body);
}
