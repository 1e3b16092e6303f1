/**
 * THE error of the bundled server's side (`petstore serve` starting, `db backup`, `db copy`)
 * that the operator can act on. It names what kind of failure it is and knows nothing of exit
 * codes: the CLI's one mapper (src/program/exit.ts) turns the kind into one. Messages name
 * files, hosts and databases, never a password.
 */
export const OPERATOR_FAILURES = [
  /** What the operator named cannot be used as it is (settings, files, a target's contents). */
  "configuration",
  /** A dependency is down, unreachable or kept locked: a later run may succeed. */
  "unavailable",
  /** The work went wrong part-way (and was undone): a bug or a fault to report. */
  "failed",
] as const;
export type OperatorFailure = (typeof OPERATOR_FAILURES)[number];

/** A failure the operator can act on: its kind, a message, a hint when one helps. */
export class OperatorError extends Error {
  readonly failure: OperatorFailure;
  readonly hint: string | undefined;
  /** A finer cause, for a caller that words its hint by it (`db backup`'s BackupFailure). */
  readonly reason: string | undefined;

  constructor(failure: OperatorFailure, message: string, hint?: string, reason?: string) {
    super(message);
    this.name = "OperatorError";
    this.failure = failure;
    this.hint = hint;
    this.reason = reason;
  }
}
