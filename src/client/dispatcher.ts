/** The one keep-alive HTTP dispatcher of a CLI run, honouring the proxy variables. */
import { EnvHttpProxyAgent, type Dispatcher } from "undici";
import { UsageError } from "../errors.js";
import type { Env } from "./target.js";

function firstSet(env: Env, names: readonly string[]): string {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
  }
  // Empty, not undefined: undici would otherwise read process.env itself.
  return "";
}

/**
 * Builds an EnvHttpProxyAgent from the given environment (HTTPS_PROXY, HTTP_PROXY,
 * NO_PROXY, upper or lower case). Connections are kept alive between calls.
 */
export function createDispatcher(env: Env, connectTimeoutMs: number): Dispatcher {
  try {
    return new EnvHttpProxyAgent({
      httpProxy: firstSet(env, ["http_proxy", "HTTP_PROXY"]),
      httpsProxy: firstSet(env, ["https_proxy", "HTTPS_PROXY"]),
      noProxy: firstSet(env, ["no_proxy", "NO_PROXY"]),
      connect: { timeout: connectTimeoutMs },
      keepAliveTimeout: 10_000,
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(
      `invalid proxy setting: ${reason}`,
      "check HTTPS_PROXY / HTTP_PROXY: expected a URL such as http://proxy.example.com:3128",
    );
  }
}
