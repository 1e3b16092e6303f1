/** Messages on stderr: errors with hints people can act on, and warnings. */
import {
  ApiError,
  CliError,
  LowStockError,
  MalformedResponseError,
  NetworkError,
} from "../errors.js";
import { apiErrorHint, malformedResponseHint, networkErrorHint } from "./error-hints.js";

/**
 * The stderr text for an error: `error: <message> (<code>, HTTP <status>)` and a hint line.
 * The client's errors carry the target they were talking to, so hints name it as selected.
 * Anything that is not a CliError is a bug, said so, with the stack only when verbose.
 * Low stock (exit 9) is a finding whose list is on stdout: nothing (an empty text).
 */
export function formatError(error: unknown, context: { verbose: boolean }): string {
  if (error instanceof LowStockError) return "";
  if (error instanceof ApiError) {
    const detail =
      error.code === undefined ? `HTTP ${error.status}` : `${error.code}, HTTP ${error.status}`;
    return lines(`${error.message} (${detail})`, apiErrorHint(error));
  }
  if (error instanceof NetworkError) return lines(error.message, networkErrorHint(error));
  if (error instanceof MalformedResponseError) {
    return lines(error.message, malformedResponseHint(error));
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
