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
} as const;
export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

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
