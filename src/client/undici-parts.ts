/**
 * The parts of undici a CLI call uses, loaded from undici's own files rather than its index.
 * The index evaluates all of undici (~1 MB: fetch, WebSocket, caches, mocks, and on Node 20,
 * through its cookie helpers, Node's internal copy of undici too), which every run paid for.
 * These files are the same ones the index exports, so the classes are the same classes.
 */
import type { Dispatcher } from "undici";
import EnvHttpProxyAgent from "undici/lib/dispatcher/env-http-proxy-agent.js";
import Pool from "undici/lib/dispatcher/pool.js";
import requestOn from "undici/lib/api/api-request.js";

export { EnvHttpProxyAgent, Pool };

/** What request() takes: undici's request options, with the dispatcher to send through. */
export type RequestOptions = Omit<Dispatcher.RequestOptions, "origin" | "path"> & {
  dispatcher: Dispatcher;
};

/**
 * undici's `request(url, options)`: splits the URL into origin and path and sends the request
 * through `options.dispatcher`. (Its own export also falls back on a global dispatcher, which
 * needs the index; every call here names its dispatcher.)
 */
export function request(url: string, options: RequestOptions): Promise<Dispatcher.ResponseData> {
  const { dispatcher, ...rest } = options;
  const target = new URL(url);
  return requestOn.call(dispatcher, {
    ...rest,
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
  });
}
