/**
 * Why `petstore db backup` made no copy: an OperatorError (src/api/operator-error.ts) whose
 * `reason` is one of these, `unavailable` when another process kept the source locked and
 * `configuration` for everything the operator must fix about the files named.
 */
import { OperatorError } from "../../../api/operator-error.js";

export const BACKUP_FAILURES = [
  /** The file to write already exists (or appeared while copying): never overwritten. */
  "out-exists",
  /** No database file at the source path. */
  "no-source",
  /** The copy could not be written beside the file to write (no such directory, no access). */
  "cannot-write",
  /** The source cannot be read as a SQLite database: not one, damaged, or refused by SQLite. */
  "unreadable-source",
  /** The copy failed its check: integrity, or not the schema version this petstore writes. */
  "check-failed",
  /** Another process held a lock on the source for longer than the backup waits. */
  "locked",
] as const;
export type BackupFailure = (typeof BACKUP_FAILURES)[number];

/** A backup that made no copy: a message naming the file, and a hint when one helps. */
export function backupError(reason: BackupFailure, message: string, hint?: string): OperatorError {
  return new OperatorError(
    reason === "locked" ? "unavailable" : "configuration",
    message,
    hint,
    reason,
  );
}
