/** Typed CLI errors and the one table that maps them to exit codes. */

/** Exit codes of the `petstore` command (PRODUCT.md, "Exit codes"). */
export const EXIT_CODES = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  unavailable: 3,
  unauthorized: 4,
  notFound: 5,
  invalid: 6,
  partialFailure: 7,
  interruptedBySigint: 130,
  interruptedBySigterm: 143,
} as const;
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** The signals that interrupt a run. */
export const INTERRUPT_SIGNALS = ["SIGINT", "SIGTERM"] as const;
export type InterruptSignal = (typeof INTERRUPT_SIGNALS)[number];

/** 130 for SIGINT, 143 for SIGTERM (128 + the signal number, as shells report them). */
export function exitCodeForSignal(signal: InterruptSignal): ExitCode {
  return signal === "SIGINT" ? EXIT_CODES.interruptedBySigint : EXIT_CODES.interruptedBySigterm;
}

/**
 * HTTP status of a final (non-retried or retries exhausted) error response → exit code.
 * Statuses not listed fall back by class: other 4xx are "rejected" (6), 5xx "unavailable" (3).
 */
const HTTP_STATUS_EXIT_CODES: Readonly<Record<number, ExitCode>> = {
  400: EXIT_CODES.invalid,
  401: EXIT_CODES.unauthorized,
  403: EXIT_CODES.unauthorized,
  404: EXIT_CODES.notFound,
  408: EXIT_CODES.unavailable,
  429: EXIT_CODES.unavailable,
};

/** The exit code for an HTTP error status (see HTTP_STATUS_EXIT_CODES). */
export function exitCodeForHttpStatus(status: number): ExitCode {
  const listed = HTTP_STATUS_EXIT_CODES[status];
  if (listed !== undefined) return listed;
  return status >= 500 ? EXIT_CODES.unavailable : EXIT_CODES.invalid;
}

/** An error the user can act on: printed as `error: <message>` with an optional hint. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly hint: string | undefined;

  constructor(message: string, exitCode: ExitCode, hint?: string) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

/** Bad arguments, unreadable input, missing configuration: exit 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, EXIT_CODES.usage, hint);
  }
}

/** The server answered with an error status; `code` is the Error body's code when it sent one. */
export class ApiError extends CliError {
  readonly status: number;
  readonly code: string | undefined;
  readonly method: string;
  readonly url: string;
  readonly attempts: number;

  constructor(details: {
    status: number;
    code: string | undefined;
    message: string;
    method: string;
    url: string;
    attempts: number;
  }) {
    super(details.message, exitCodeForHttpStatus(details.status));
    this.status = details.status;
    this.code = details.code;
    this.method = details.method;
    this.url = details.url;
    this.attempts = details.attempts;
  }
}

/** What went wrong below HTTP: no connection, or no complete answer in time. */
export const NETWORK_FAILURES = ["unreachable", "timeout"] as const;
export type NetworkFailure = (typeof NETWORK_FAILURES)[number];

/** The server could not be reached or did not answer in time, after retries: exit 3. */
export class NetworkError extends CliError {
  readonly failure: NetworkFailure;
  readonly method: string;
  readonly url: string;
  readonly attempts: number;

  constructor(details: {
    failure: NetworkFailure;
    message: string;
    method: string;
    url: string;
    attempts: number;
  }) {
    super(details.message, EXIT_CODES.unavailable);
    this.failure = details.failure;
    this.method = details.method;
    this.url = details.url;
    this.attempts = details.attempts;
  }
}

/**
 * The server answered 2xx but the body is not what the spec promises. Not a bug of
 * the CLI, and nothing a retry fixes reliably: treated like a failing server, exit 3.
 */
export class MalformedResponseError extends CliError {
  readonly method: string;
  readonly url: string;

  constructor(details: { message: string; method: string; url: string }) {
    super(details.message, EXIT_CODES.unavailable);
    this.method = details.method;
    this.url = details.url;
  }
}

/** The exit code for anything thrown: typed errors carry theirs, the rest is a bug (1). */
export function exitCodeFor(error: unknown): ExitCode {
  return error instanceof CliError ? error.exitCode : EXIT_CODES.unexpected;
}
