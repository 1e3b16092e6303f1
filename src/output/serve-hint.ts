/** The `petstore serve` command line that would answer at a base URL on this machine. */
import { isLoopbackHost } from "../api/loopback.js";
import { LOCAL_BASE_URL } from "../client/target.js";

/** Where `petstore serve` listens without --host and --port: `--env local`'s URL. */
const SERVE_DEFAULTS = new URL(LOCAL_BASE_URL);

/**
 * `PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo [--host H] [--port P]`: the
 * bundled server with demo data where `baseUrl` points, accepting the key the CLI sends, from
 * its variable or read from its file (`"$(cat "$PETSTORE_API_KEY_FILE")"`). Never that file as
 * `--api-keys-file`: the client's file holds the raw key, a server's keys file holds
 * `name scope sha256:…` lines (petstore keys create). Undefined when the bundled server could
 * not answer there: another machine, https, or a path other than /v1.
 */
export function serveCommandFor(baseUrl: string, apiKeySource: string): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" || !isLoopbackHost(url.hostname)) return undefined;
  if (url.pathname.replace(/\/+$/, "") !== SERVE_DEFAULTS.pathname) return undefined;
  const host =
    url.hostname === "localhost" || url.hostname === SERVE_DEFAULTS.hostname
      ? ""
      : ` --host ${url.hostname.replace(/^\[(.*)\]$/, "$1")}`;
  const port =
    url.port === SERVE_DEFAULTS.port ? "" : ` --port ${url.port === "" ? "80" : url.port}`;
  const key =
    apiKeySource === "PETSTORE_API_KEY_FILE"
      ? '"$(cat "$PETSTORE_API_KEY_FILE")"'
      : `"$${apiKeySource}"`;
  return `PETSTORE_API_KEYS=${key} petstore serve --demo${host}${port}`;
}
