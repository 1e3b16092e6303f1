/**
 * Direct calls (no proxy) with Node's own HTTP client, connections kept alive between calls.
 * Its parser is built into Node, so a run loads next to nothing for it; undici's public entry
 * evaluates all of undici (~1 MB: fetch, WebSocket, caches, mocks), and on Node 20 its
 * WebAssembly parser makes the process wait at exit for V8's background recompiles.
 */
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from "node:http";
import type { Exchange, ExchangeAnswer } from "./transport.js";

/** An exchange and what ends it: close() drops the connections kept alive. */
export interface HttpExchange {
  exchange: Exchange;
  close: () => Promise<void>;
}

type RequestFunction = (
  url: URL,
  options: RequestOptions,
  onResponse: (response: IncomingMessage) => void,
) => ClientRequest;

/** Reads the whole body of `response`; rejects if the connection ends before it does. */
function readAnswer(response: IncomingMessage): Promise<ExchangeAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on("data", (chunk: Buffer) => chunks.push(chunk));
    response.on("error", reject);
    response.on("end", () => {
      resolve({
        status: response.statusCode ?? 0,
        headers: response.headers,
        text: Buffer.concat(chunks).toString("utf8"),
      });
    });
    response.on("close", () => {
      if (!response.complete) {
        reject(
          Object.assign(new Error("the server closed the connection"), { code: "ECONNRESET" }),
        );
      }
    });
  });
}

/** Sends requests with node:http and node:https (loaded when the first https URL comes). */
export function createHttpExchange(): HttpExchange {
  // Read with getBuiltinModule, not imported: an ESM import of node:http reads every export,
  // and on Node 24 its lazy WebSocket getter loads Node's internal copy of undici.
  const http = process.getBuiltinModule("node:http");
  const agents = new Map<string, Agent>();
  const client = (protocol: string): { request: RequestFunction; agent: Agent } => {
    const module = protocol === "https:" ? process.getBuiltinModule("node:https") : http;
    let agent = agents.get(protocol);
    if (agent === undefined) {
      agent = new module.Agent({ keepAlive: true });
      agents.set(protocol, agent);
    }
    return { request: module.request, agent };
  };

  const exchange: Exchange = (url, { method, headers, body, signal }) => {
    const target = new URL(url);
    const { request, agent } = client(target.protocol);
    // Bytes, never a string: node:http writes headers sent together with a string body in
    // that body's encoding (UTF-8), which would mangle a header carrying bytes as ISO-8859-1
    // characters (X-Change-Reason: change-reason.ts).
    const bytes = body === undefined ? undefined : Buffer.from(body, "utf8");
    const length = bytes === undefined ? {} : { "content-length": String(bytes.length) };
    return new Promise((resolve, reject) => {
      const outgoing = request(
        target,
        { method, headers: { ...headers, ...length }, agent, signal },
        (response) => {
          readAnswer(response).then(resolve, reject);
        },
      );
      outgoing.on("error", reject);
      outgoing.end(bytes);
    });
  };

  return {
    exchange,
    close: () => {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
      return Promise.resolve();
    },
  };
}
