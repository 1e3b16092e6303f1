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
 * stdout could not be written (a full disk: ENOSPC) and what the command printed is incomplete:
 * exit 2, as for an input file it cannot read, since it is the place the output goes that needs
 * fixing, not petstore. (A reader that went away, EPIPE, is no error: see src/main.ts.)
 */
export class OutputError extends CliError {
  constructor(cause: NodeJS.ErrnoException) {
    super(
      `cannot write the output: ${systemReason(cause)}`,
      EXIT_CODES.usage,
      "what was printed is incomplete: make room where stdout goes, or send it elsewhere (a write the command sent stays made; a --cursor-file is saved only for what was written out)",
    );
  }
}

/**
 * A system error in the system's words and code, `no space left on device (ENOSPC)`, from
 * Node's message `ENOSPC: no space left on device, write`.
 */
function systemReason(error: NodeJS.ErrnoException): string {
  const { code, syscall, message } = error;
  if (code === undefined) return message;
  let words = message.startsWith(`${code}: `) ? message.slice(code.length + 2) : message;
  const end = syscall === undefined ? -1 : words.lastIndexOf(`, ${syscall}`);
  if (end > 0) words = words.slice(0, end);
  return `${words} (${code})`;
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
