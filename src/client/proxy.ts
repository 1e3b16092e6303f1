/**
 * The proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, upper or lower case) read from
 * an explicit environment, and which proxy a URL goes through: the dispatcher routes by
 * the same settings, and error messages name the proxy so the user looks at the right machine.
 */
import type { ProxyContext } from "./errors.js";
import type { Env } from "./target.js";

/** The proxy variables; an empty string means unset. */
export interface ProxySettings {
  httpProxy: ProxySetting;
  httpsProxy: ProxySetting;
  noProxy: string;
}

/** One proxy variable's value and its name. */
export interface ProxySetting {
  url: string;
  source: string;
}

function firstSet(env: Env, names: readonly string[]): ProxySetting {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== "") return { url: value, source: name };
  }
  return { url: "", source: "" };
}

/** Reads the proxy variables; the lower-case name wins, as curl and undici do. */
export function proxySettings(env: Env): ProxySettings {
  return {
    httpProxy: firstSet(env, ["http_proxy", "HTTP_PROXY"]),
    httpsProxy: firstSet(env, ["https_proxy", "HTTPS_PROXY"]),
    noProxy: firstSet(env, ["no_proxy", "NO_PROXY"]).url,
  };
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

/** Does NO_PROXY exempt this host? The rules of undici 7's EnvHttpProxyAgent, which routes. */
function exempt(noProxy: string, url: URL): boolean {
  const entries = noProxy.split(/[,\s]/).filter((entry) => entry !== "");
  if (entries.length === 0) return false;
  if (noProxy === "*") return true;
  const hostname = url.host.replace(/:\d*$/, "").toLowerCase();
  const port = Number.parseInt(url.port, 10) || (DEFAULT_PORTS[url.protocol] ?? 0);
  return entries.some((entry) => {
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed?.[1] ?? entry).replace(/^\*?\./, "").toLowerCase();
    const entryPort = parsed?.[2] === undefined ? 0 : Number.parseInt(parsed[2], 10);
    if (entryPort !== 0 && entryPort !== port) return false;
    return hostname === host || hostname.endsWith(`.${host}`);
  });
}

/** The proxy a request to `url` goes through, as `host:port` and the variable it came from. */
export function proxyFor(settings: ProxySettings, url: string): ProxyContext | undefined {
  const target = new URL(url);
  if (exempt(settings.noProxy, target)) return undefined;
  // An https URL falls back to HTTP_PROXY when HTTPS_PROXY is unset; an http URL never
  // uses HTTPS_PROXY.
  const setting =
    target.protocol === "https:" && settings.httpsProxy.url !== ""
      ? settings.httpsProxy
      : settings.httpProxy;
  if (setting.url === "") return undefined;
  let proxy: URL;
  try {
    proxy = new URL(setting.url);
  } catch {
    // createDispatcher refuses such a value before any request; never echo it (credentials).
    return { address: "an unparsable proxy URL", source: setting.source };
  }
  // host, not href: a proxy URL may hold a user and password.
  const port = proxy.port === "" ? "" : `:${proxy.port}`;
  return { address: `${proxy.hostname}${port}`, source: setting.source };
}
