/** How a CLI run's requests leave the process: directly, or through the proxy the env names. */
import { createHttpExchange, type HttpExchange } from "./http-exchange.js";
import { proxySettings } from "./proxy.js";
import type { Env } from "./target.js";

/**
 * Node's own HTTP client when no proxy variable is set, which loads next to nothing; undici's
 * EnvHttpProxyAgent when one is (HTTPS_PROXY, HTTP_PROXY, NO_PROXY: see dispatcher.ts), loaded
 * only then. `timeoutMs` bounds each attempt; the transport enforces it on both.
 */
export async function openConnections(env: Env, timeoutMs: number): Promise<HttpExchange> {
  const settings = proxySettings(env);
  if (settings.httpProxy.url === "" && settings.httpsProxy.url === "") {
    return createHttpExchange();
  }
  const { createDispatcher, undiciExchange } = await import("./dispatcher.js");
  const dispatcher = createDispatcher(env, timeoutMs);
  // As the direct exchange's close(): the run is over, so a request still out (one an
  // interrupt left behind) is dropped, not waited for until its time-out.
  return { exchange: undiciExchange(dispatcher), close: () => dispatcher.destroy() };
}
