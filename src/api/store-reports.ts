/**
 * What the operator's verbs on a store report (`db backup`, `db copy`): made by the server's
 * store code, printed by the CLI's output/db.ts.
 */

/** What a finished backup wrote and what its check found. */
export interface BackupReport {
  /** The file written, as given. */
  path: string;
  /** The database copied, as given. */
  source: string;
  bytes: number;
  /** What `PRAGMA integrity_check` said of the copy (a report exists only when it is `ok`). */
  integrity: "ok";
  schemaVersion: number;
  /** Pets, each an inventory entry (the quantity is a column of the pet). */
  pets: number;
  orders: number;
  /** History records: every change of a quantity, the change feed's records. */
  historyRecords: number;
  /** Idempotency-Key records (kept 24 hours). */
  idempotencyRecords: number;
}

/** One line of the report: a table's rows (or units in stock) in the source and the target. */
export interface CopiedCount {
  label: string;
  source: bigint;
  copied: bigint;
}

export interface CopyReport {
  /** `database D on HOST:PORT`: the target, without user or password. */
  target: string;
  counts: CopiedCount[];
  /** The last seq of the change feed (0 without history): the next change's is larger. */
  lastSeq: bigint;
  elapsedMs: number;
}
