/** Which server the CLI talks to and with which key (docs/scripts.md, "Setting up"; `petstore --help`). */
import { fileErrorReason } from "../api/file-error.js";
import { ConfigurationError, type TargetContext } from "./errors.js";

/** The environments `--env` accepts. */
export const TARGET_ENVS = ["production", "staging", "local"] as const;
export type TargetEnv = (typeof TARGET_ENVS)[number];

/** Where `petstore serve` listens by default. */
export const LOCAL_BASE_URL = "http://127.0.0.1:4010/v1";

/** The selected server and key, plus where each came from (for hints). */
export interface Target extends TargetContext {
  env: TargetEnv;
  apiKey: string;
}

/** What errors may carry about a target: everything but the key. */
export function describeTarget(target: Target): TargetContext {
  return {
    env: target.env,
    baseUrl: target.baseUrl,
    baseUrlSource: target.baseUrlSource,
    apiKeySource: target.apiKeySource,
  };
}

/** The flags that select the target. */
export interface TargetOptions {
  env?: string | undefined;
  staging?: boolean | undefined;
  baseUrl?: string | undefined;
}

export type Env = Readonly<Record<string, string | undefined>>;

function isTargetEnv(value: string): value is TargetEnv {
  return (TARGET_ENVS as readonly string[]).includes(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}

/** Picks the environment: `--staging`, then `--env`, then PETSTORE_ENV, else production. */
export function resolveTargetEnv(options: TargetOptions, env: Env): TargetEnv {
  const flag = options.env;
  if (options.staging === true) {
    if (flag !== undefined && flag !== "staging") {
      throw new ConfigurationError(
        `--staging conflicts with --env ${flag}`,
        "pass only one of them",
      );
    }
    return "staging";
  }
  if (flag !== undefined) {
    if (!isTargetEnv(flag)) {
      throw new ConfigurationError(
        `invalid --env "${flag}": expected one of ${TARGET_ENVS.join(", ")}`,
        "for example: petstore --env staging inventory list",
      );
    }
    return flag;
  }
  const fromEnv = nonEmpty(env.PETSTORE_ENV);
  if (fromEnv === undefined) return "production";
  if (!isTargetEnv(fromEnv)) {
    throw new ConfigurationError(
      `invalid PETSTORE_ENV "${fromEnv}": expected one of ${TARGET_ENVS.join(", ")}`,
      "fix or unset PETSTORE_ENV",
    );
  }
  return fromEnv;
}

/**
 * A URL's text as a message shows it: whatever stands between `//` and the last `@` (a user
 * and password, which may hold `/`, `?` or `#` when the URL is not valid) as `***`.
 */
function shownUrl(text: string): string {
  return text.replace(/^([^/]*\/\/).*@/, "$1***@");
}

function checkBaseUrl(text: string, source: string): string {
  const shown = shownUrl(text);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigurationError(
      `invalid base URL "${shown}" (from ${source})`,
      "expected an absolute http(s) URL ending in /v1, e.g. https://petstore.example.com/v1",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigurationError(
      `invalid base URL "${shown}" (from ${source}): only http and https are supported`,
    );
  }
  // Every message names the base URL, so a password in it would be shown; and the API key
  // is what authenticates (the Authorization header is the key's).
  if (url.username !== "" || url.password !== "") {
    throw new ConfigurationError(
      `invalid base URL "${url.protocol}//***@${url.host}${url.pathname}" (from ${source}): it holds a user name or password`,
      "take them out of the URL: petstore authenticates with the API key (PETSTORE_API_KEY or PETSTORE_API_KEY_FILE)",
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw new ConfigurationError(
      `invalid base URL "${shown}" (from ${source}): it must not have a query or fragment`,
    );
  }
  return url.href.replace(/\/+$/, "");
}

function resolveBaseUrl(
  targetEnv: TargetEnv,
  options: TargetOptions,
  env: Env,
): { baseUrl: string; source: string } {
  const flag = nonEmpty(options.baseUrl);
  if (flag !== undefined)
    return { baseUrl: checkBaseUrl(flag, "--base-url"), source: "--base-url" };
  if (targetEnv === "local") {
    // Said as it was given: the flag, or the variable (a shell profile's, a unit's).
    const given = options.env === undefined ? "PETSTORE_ENV=local" : "--env local";
    return { baseUrl: LOCAL_BASE_URL, source: given };
  }
  const variable = targetEnv === "staging" ? "PETSTORE_STAGING_URL" : "PETSTORE_BASE_URL";
  const value = nonEmpty(env[variable]);
  if (value === undefined) {
    throw new ConfigurationError(
      `no ${targetEnv} base URL: set ${variable} (or pass --base-url)`,
      `for example: export ${variable}=https://petstore.example.com/v1` +
        (targetEnv === "production" ? "; or use --env local for a local petstore serve" : ""),
    );
  }
  return { baseUrl: checkBaseUrl(value, variable), source: variable };
}

async function resolveApiKey(
  targetEnv: TargetEnv,
  env: Env,
  readFile: (path: string) => Promise<string>,
): Promise<{ apiKey: string; source: string }> {
  const candidates =
    targetEnv === "staging"
      ? ["PETSTORE_STAGING_API_KEY", "PETSTORE_API_KEY"]
      : ["PETSTORE_API_KEY"];
  for (const variable of candidates) {
    const value = nonEmpty(env[variable]);
    if (value !== undefined) return { apiKey: checkKey(value, variable), source: variable };
  }
  const file = nonEmpty(env.PETSTORE_API_KEY_FILE);
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file);
    } catch (error) {
      throw new ConfigurationError(
        `cannot read the API key file ${file} (PETSTORE_API_KEY_FILE): ${fileErrorReason(error)}`,
        "point PETSTORE_API_KEY_FILE at a readable file holding the key",
      );
    }
    const key = nonEmpty(text);
    if (key === undefined) {
      throw new ConfigurationError(`the API key file ${file} (PETSTORE_API_KEY_FILE) is empty`);
    }
    return { apiKey: checkKey(key, "PETSTORE_API_KEY_FILE"), source: "PETSTORE_API_KEY_FILE" };
  }
  throw new ConfigurationError(
    `no API key: set ${candidates.join(" or ")} (or PETSTORE_API_KEY_FILE)`,
    "the key is never accepted as a flag, so it stays out of shell history and ps",
  );
}

function checkKey(key: string, source: string): string {
  // A header value cannot hold control characters; say so instead of failing in the HTTP layer.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) {
    throw new ConfigurationError(
      `the API key in ${source} contains control characters or line breaks`,
    );
  }
  return key;
}

/**
 * Resolves base URL then key from flags and variables. Throws ConfigurationError naming the
 * variable to set when either is missing, so no request is ever sent without them.
 */
export async function resolveTarget(
  options: TargetOptions,
  env: Env,
  readFile: (path: string) => Promise<string>,
): Promise<Target> {
  const targetEnv = resolveTargetEnv(options, env);
  const { baseUrl, source } = resolveBaseUrl(targetEnv, options, env);
  const key = await resolveApiKey(targetEnv, env, readFile);
  return {
    env: targetEnv,
    baseUrl,
    baseUrlSource: source,
    apiKey: key.apiKey,
    apiKeySource: key.source,
  };
}
