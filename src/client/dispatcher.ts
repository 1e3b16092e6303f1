/**
 * undici, for calls through a proxy: the keep-alive dispatcher honouring the proxy variables,
 * and the exchange that sends through it (or through a dispatcher a test injects).
 */
import { EnvHttpProxyAgent, Pool, request, type Dispatcher } from "undici";
import { ConfigurationError } from "./errors.js";
import { proxySettings } from "./proxy.js";
import type { Env } from "./target.js";
import type { Exchange } from "./transport.js";

/**
 * Builds an EnvHttpProxyAgent from the given environment (HTTPS_PROXY, HTTP_PROXY,
 * NO_PROXY, upper or lower case; see proxy.ts). Connections are kept alive between calls.
 * `timeoutMs` bounds connecting, to the server or to the proxy, and the proxy's answer to
 * CONNECT: undici applies neither the request's signal nor its timeouts to the tunnel
 * (nodejs/undici#3944), so a proxy that accepts and never answers would hang forever.
 */
export function createDispatcher(env: Env, timeoutMs: number): Dispatcher {
  const settings = proxySettings(env);
  try {
    return new EnvHttpProxyAgent({
      // Empty, not undefined, when unset: undici would otherwise read process.env itself.
      httpProxy: settings.httpProxy.url,
      httpsProxy: settings.httpsProxy.url,
      noProxy: settings.noProxy,
      connect: { timeout: timeoutMs },
      keepAliveTimeout: 10_000,
      // The TCP (or TLS) connect to the proxy itself.
      proxyTls: { timeout: timeoutMs },
      // The client that sends CONNECT to the proxy: its answer must come within the timeout.
      clientFactory: (origin, options) =>
        new Pool(origin, { ...options, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }),
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigurationError(
      `invalid proxy setting: ${reason}`,
      "check HTTPS_PROXY / HTTP_PROXY: expected a URL such as http://proxy.example.com:3128",
    );
  }
}

/** Sends each request through `dispatcher`, bounding each phase by the attempt's time-out too. */
export function undiciExchange(dispatcher: Dispatcher): Exchange {
  return async (url, { method, headers, body, signal, timeoutMs }) => {
    const response = await request(url, {
      method,
      headers,
      body: body ?? null,
      dispatcher,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      text: await response.body.text(),
    };
  };
}
