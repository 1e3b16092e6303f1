/**
 * The CLI's own errors (CliError), each of which names its exit code; the API client's errors,
 * which know nothing of exit codes, are in client/errors.ts. src/program/exit.ts turns any of
 * them into an exit code and the `error:`/`hint:` lines.
 */
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";

/** An error of a command the user can act on: printed as `error: <message>` with an optional hint. */
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

/**
 * `inventory low` found entries below their threshold: exit 9 once the list is on stdout. A
 * finding rather than a failure, as grep's exit 1 is: nothing is printed on stderr for it (see
 * src/program/exit.ts), so a cron job that mails on exit 9 mails the list alone, and cron's own mail of
 * stderr still means that the job failed.
 */
export class LowStockError extends CliError {
  /** How many entries are low. */
  readonly low: number;

  constructor(low: number) {
    super(
      `${low} ${low === 1 ? "entry is" : "entries are"} below their threshold`,
      EXIT_CODES.lowStock,
    );
    this.low = low;
  }
}
