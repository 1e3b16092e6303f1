/**
 * The metrics listener: `GET /metrics` in the Prometheus text format, on an address of its own
 * (`--metrics-host`, loopback by default), apart from the API and its keys. Anything else is
 * 404, or 405 for another method on /metrics.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { ServerMetrics } from "./metrics.js";

export async function listenForMetrics(
  metrics: ServerMetrics,
  host: string,
  port: number,
): Promise<Server> {
  const server = createServer((request, response) => {
    void answer(metrics, request, response);
  });
  server.keepAliveTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}

async function answer(
  metrics: ServerMetrics,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = (request.url ?? "").split("?", 1)[0];
  if (path !== "/metrics") {
    plain(response, 404, "not found: the metrics are at GET /metrics\n");
  } else if (request.method !== "GET" && request.method !== "HEAD") {
    response.setHeader("allow", "GET, HEAD");
    plain(response, 405, "method not allowed: GET /metrics\n");
  } else {
    try {
      const { contentType, text } = await metrics.exposition();
      response.writeHead(200, { "content-type": contentType });
      response.end(request.method === "HEAD" ? undefined : text);
    } catch {
      plain(response, 500, "the metrics could not be collected\n");
    }
  }
}

function plain(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
  response.end(text);
}
