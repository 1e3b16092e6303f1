/**
 * THE mapper from anything a run throws to its exit code and what stderr says about it: the
 * API client's errors by what failed (an HTTP status, the network, a malformed answer, a
 * setting), the server side's OperatorError by its kind, the CLI's own errors (CliError) by
 * the code they name, commander's by whether it printed help or an error, and anything else
 * as a bug. The codes and their meanings are in src/exit-codes.ts.
 */
import { CommanderError } from "commander";
import { OperatorError } from "../api/operator-error.js";
import { CliError, LowStockError } from "../errors.js";
import {
  ApiError,
  ConfigurationError,
  MalformedResponseError,
  NetworkError,
} from "../client/errors.js";
import { EXIT_CODES, OPERATOR_EXIT_CODES, type ExitCode } from "../exit-codes.js";
import { apiErrorHint, malformedResponseHint, networkErrorHint } from "../output/error-hints.js";

/** How a run ends: its code, and the `error:` message, `hint:` and stack stderr gets (if any). */
export interface Exit {
  code: ExitCode;
  message?: string | undefined;
  hint?: string | undefined;
  /** The stack of a bug, shown with --verbose. */
  stack?: string | undefined;
}

/**
 * HTTP status of a final (non-retried or retries exhausted) error response → exit code.
 * Statuses not listed fall back by class: 3xx is configuration (2: the CLI does not follow
 * redirects, so the base URL is wrong), other 4xx "rejected" (6), 5xx "unavailable" (3).
 */
const HTTP_STATUS_EXIT_CODES: Readonly<Record<number, ExitCode>> = {
  400: EXIT_CODES.invalid,
  401: EXIT_CODES.unauthorized,
  403: EXIT_CODES.unauthorized,
  404: EXIT_CODES.notFound,
  408: EXIT_CODES.unavailable,
  412: EXIT_CODES.conflict,
  429: EXIT_CODES.unavailable,
};

function exitCodeForHttpStatus(status: number): ExitCode {
  const listed = HTTP_STATUS_EXIT_CODES[status];
  if (listed !== undefined) return listed;
  if (status >= 500) return EXIT_CODES.unavailable;
  return status < 400 ? EXIT_CODES.usage : EXIT_CODES.invalid;
}

/**
 * The exit of a run that threw `error`. The client's errors carry the target they were talking
 * to, so hints name it as selected. Low stock (exit 9) is a finding whose list is on stdout:
 * no message. Commander has printed its own message (or the help, or the version).
 */
export function exitFor(
  error: unknown,
  context: { verbose: boolean; env?: Readonly<Record<string, string | undefined>> },
): Exit {
  if (error instanceof CommanderError) {
    return { code: error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage };
  }
  if (error instanceof LowStockError) return { code: error.exitCode };
  if (error instanceof ApiError) {
    const detail =
      error.code === undefined ? `HTTP ${error.status}` : `${error.code}, HTTP ${error.status}`;
    return {
      code: exitCodeForHttpStatus(error.status),
      message: `${error.message} (${detail})`,
      hint: apiErrorHint(error),
    };
  }
  if (error instanceof NetworkError) {
    return {
      code: EXIT_CODES.unavailable,
      message: error.message,
      hint: networkErrorHint(error, context.env),
    };
  }
  if (error instanceof MalformedResponseError) {
    return {
      code: EXIT_CODES.unavailable,
      message: error.message,
      hint: malformedResponseHint(error),
    };
  }
  if (error instanceof ConfigurationError) {
    return { code: EXIT_CODES.usage, message: error.message, hint: error.hint };
  }
  if (error instanceof OperatorError) {
    return {
      code: OPERATOR_EXIT_CODES[error.failure],
      message: error.message,
      hint: error.hint,
    };
  }
  if (error instanceof CliError) {
    return { code: error.exitCode, message: error.message, hint: error.hint };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: EXIT_CODES.unexpected,
    message: `unexpected failure: ${message}`,
    hint: `this is a bug in petstore, please report it${context.verbose ? "" : " (--verbose shows the stack trace)"}`,
    stack: context.verbose && error instanceof Error ? (error.stack ?? "") : undefined,
  };
}
