/**
 * An HTTP proxy in front of a real server that loses responses on purpose: it forwards a PATCH,
 * waits for the server's whole answer (so the change is committed), and then closes the client's
 * connection instead of passing the answer on. What a dropped connection or a crashed load
 * balancer does to a client after the server has done the work.
 */
import { once } from "node:events";
import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the proxy saw, and the answer the server gave it. */
export interface ProxiedExchange {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  ifMatch: string | undefined;
  body: string;
  status: number;
  replayed: string | undefined;
  responseBody: string;
  /** True when the answer was thrown away and the client's connection closed. */
  lost: boolean;
}

export interface LossyProxy {
  /** Base URL ending in /v1, to give the CLI instead of the server's. */
  url: string;
  exchanges: ProxiedExchange[];
  stop(): Promise<void>;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** Starts the proxy; the first `losePatches` PATCH answers are lost, the rest pass through. */
export async function startLossyProxy(target: string, losePatches: number): Promise<LossyProxy> {
  const upstream = new URL(target);
  const exchanges: ProxiedExchange[] = [];
  let toLose = losePatches;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const outgoing = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
        },
        (answer) => {
          const answerChunks: Buffer[] = [];
          answer.on("data", (chunk: Buffer) => answerChunks.push(chunk));
          answer.on("end", () => {
            const lose = request.method === "PATCH" && toLose > 0;
            if (lose) toLose -= 1;
            const responseBody = Buffer.concat(answerChunks);
            exchanges.push({
              method: request.method ?? "",
              path: request.url ?? "",
              idempotencyKey: header(request.headers, "idempotency-key"),
              ifMatch: header(request.headers, "if-match"),
              body: body.toString(),
              status: answer.statusCode ?? 0,
              replayed: header(answer.headers, "idempotent-replayed"),
              responseBody: responseBody.toString(),
              lost: lose,
            });
            if (lose) {
              request.socket.destroy();
              return;
            }
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            response.end(responseBody);
          });
        },
      );
      outgoing.on("error", () => response.destroy());
      outgoing.end(body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    exchanges,
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
