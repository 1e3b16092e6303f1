/**
 * A write was refused because the database's storage is full (SQLite: SQLITE_FULL, or the WAL
 * index could not grow; PostgreSQL: `disk_full`, SQLSTATE 53100). Nothing of it was written,
 * the connection stays usable, and the same write succeeds once space is freed, without a
 * restart. `petstore serve` answers 503 `storage_full` with `Retry-After`. The message names
 * the database (the SQLite file, or PostgreSQL's database and host, never a password) for the
 * server's log; callers are told only that the storage is full.
 */
export class StoreFullError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "StoreFullError";
  }
}
