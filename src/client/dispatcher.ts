/** The one keep-alive HTTP dispatcher of a CLI run, honouring the proxy variables. */
import type { Dispatcher } from "undici";
import { UsageError } from "../errors.js";
import { proxySettings } from "./proxy.js";
import type { Env } from "./target.js";
import { EnvHttpProxyAgent, Pool } from "./undici-parts.js";

/**
 * Builds an EnvHttpProxyAgent from the given environment (HTTPS_PROXY, HTTP_PROXY,
 * NO_PROXY, upper or lower case; see proxy.ts). Connections are kept alive between calls.
 * `timeoutMs` bounds connecting, to the server or to the proxy, and the proxy's answer to
 * CONNECT: undici applies neither the request's signal nor its timeouts to the tunnel
 * (nodejs/undici#3944), so a proxy that accepts and never answers would hang forever.
 *
 * Without a proxy, only the parts of undici a direct call needs are loaded (undici-parts.ts).
 * A proxy tunnel is opened with `Dispatcher#connect`, a method undici's index adds to every
 * dispatcher (the same classes), so with a proxy variable set the index is loaded too.
 */
export async function createDispatcher(env: Env, timeoutMs: number): Promise<Dispatcher> {
  const settings = proxySettings(env);
  const viaProxy = settings.httpProxy.url !== "" || settings.httpsProxy.url !== "";
  if (viaProxy) await import("undici");
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
    throw new UsageError(
      `invalid proxy setting: ${reason}`,
      "check HTTPS_PROXY / HTTP_PROXY: expected a URL such as http://proxy.example.com:3128",
    );
  }
}
