/** Messages on stderr: errors with hints people can act on, and warnings. */
import { ApiError, CliError, EXIT_CODES, MalformedResponseError, NetworkError } from "../errors.js";

/** What the error message may mention about the selected target (never the key). */
export interface TargetContext {
  env: string;
  baseUrl: string;
  baseUrlSource: string;
  apiKeySource: string;
}

function times(count: number): string {
  return count === 1 ? "1 attempt" : `${count} attempts`;
}

function isPetUrl(url: string): boolean {
  return /\/(inventory|pets)\/[^/]+$/.test(new URL(url).pathname);
}

function apiErrorHint(error: ApiError, target: TargetContext | undefined): string | undefined {
  switch (error.exitCode) {
    case EXIT_CODES.unauthorized:
      return target === undefined
        ? "check the API key"
        : `check the API key for --env ${target.env}: it comes from ${target.apiKeySource}`;
    case EXIT_CODES.notFound:
      // A 404 on a pet's URL is about the pet, unless the server says the route is unknown;
      // on any other URL (`inventory list`, `orders list`) it can only be the route.
      if (isPetUrl(error.url) && error.code !== "not_found") {
        return "check the petId; petstore inventory list shows the known ones";
      }
      return target === undefined
        ? "the server has no such route: check that the base URL is right and ends in /v1"
        : `the server has no such route: check that the base URL ${target.baseUrl} (from ${target.baseUrlSource}) is right and ends in /v1`;
    case EXIT_CODES.unavailable:
      return `the server kept failing (${times(error.attempts)}); try again later, or raise --retries`;
    default:
      return undefined;
  }
}

function networkErrorHint(error: NetworkError, target: TargetContext | undefined): string {
  const where =
    target === undefined ? error.url : `${target.baseUrl} (from ${target.baseUrlSource})`;
  if (error.failure === "timeout") {
    return `tried ${where}, ${times(error.attempts)}; raise --timeout or check the network`;
  }
  return `tried ${where}, ${times(error.attempts)}; is the server running and the URL right?`;
}

/**
 * The stderr text for an error: `error: <message> (<code>, HTTP <status>)` and a hint line.
 * Anything that is not a CliError is a bug, said so, with the stack only when verbose.
 */
export function formatError(
  error: unknown,
  context: { target?: TargetContext | undefined; verbose: boolean },
): string {
  if (error instanceof ApiError) {
    const detail =
      error.code === undefined ? `HTTP ${error.status}` : `${error.code}, HTTP ${error.status}`;
    return lines(`${error.message} (${detail})`, apiErrorHint(error, context.target));
  }
  if (error instanceof NetworkError) {
    return lines(error.message, networkErrorHint(error, context.target));
  }
  if (error instanceof MalformedResponseError) {
    const where =
      context.target === undefined
        ? "the server"
        : `${context.target.baseUrl} (from ${context.target.baseUrlSource})`;
    return lines(error.message, `is ${where} a petstore API? The base URL must end in /v1`);
  }
  if (error instanceof CliError) return lines(error.message, error.hint);
  const message = error instanceof Error ? error.message : String(error);
  const stack = context.verbose && error instanceof Error ? `${error.stack ?? ""}\n` : "";
  return (
    lines(
      `unexpected failure: ${message}`,
      `this is a bug in petstore, please report it${context.verbose ? "" : " (--verbose shows the stack trace)"}`,
    ) + stack
  );
}

function lines(message: string, hint: string | undefined): string {
  return `error: ${message}\n${hint === undefined ? "" : `hint: ${hint}\n`}`;
}

function deprecationDate(value: string): string {
  // RFC 9745: "@<unix-seconds>"; older drafts used an HTTP-date or "true".
  const seconds = /^@(-?[0-9]+)$/.exec(value.trim())?.[1];
  const date = seconds === undefined ? new Date(value) : new Date(Number(seconds) * 1000);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().slice(0, 10);
}

/** The one warning printed when a response says its operation is deprecated or sunset. */
export function formatDeprecationWarning(notice: {
  method: string;
  url: string;
  deprecation: string | undefined;
  sunset: string | undefined;
}): string {
  const since =
    notice.deprecation === undefined || notice.deprecation.trim() === "true"
      ? ""
      : ` since ${deprecationDate(notice.deprecation)}`;
  const until =
    notice.sunset === undefined ? "" : `; it stops working after ${deprecationDate(notice.sunset)}`;
  return `warning: the server marks ${notice.method} ${notice.url} as deprecated${since}${until}\n`;
}
