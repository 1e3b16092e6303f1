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
  keepWebAssemblyOnLiftoff();
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

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 11 (Node 20) recompiles its hot
 * functions with TurboFan on background threads, and the process waits for those compiles
 * before it exits: every call ended ~100-300 ms after its output was written, more than the rest
 * of the call. V8's baseline code (Liftoff) parses a CLI's responses well enough. Later V8s do
 * not make the exit wait, and there the flag would only cost (it invalidates the compile cache).
 * It must be set before the first connection compiles llhttp.
 */
function keepWebAssemblyOnLiftoff(): void {
  if (Number(process.versions.v8.split(".")[0]) < 12) {
    process.getBuiltinModule("node:v8").setFlagsFromString("--liftoff-only");
  }
}
