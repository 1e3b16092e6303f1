/**
 * Why `db copy` stopped. The server knows nothing of exit codes: `petstore db copy` maps each
 * kind to one. Messages name files, hosts and databases, never a password.
 */
export const COPY_FAILURES = [
  /** The source file, the target's contents or its schema: nothing a retry changes. */
  "refused",
  /** The database could not be reached, or was busy: a later run may succeed. */
  "unavailable",
  /** The copy went wrong (counts differ, a row the target would not take): rolled back. */
  "failed",
] as const;
export type CopyFailure = (typeof COPY_FAILURES)[number];

/** A failure of `db copy` the operator can act on: a message, and a hint when one helps. */
export class CopyError extends Error {
  readonly failure: CopyFailure;
  readonly hint: string | undefined;

  constructor(failure: CopyFailure, message: string, hint?: string) {
    super(message);
    this.name = "CopyError";
    this.failure = failure;
    this.hint = hint;
  }
}
