/** The write lock of a SQLite file, held by another connection as another process would hold it. */
import Database from "better-sqlite3";

/**
 * Runs `action` while another connection holds the write lock of the SQLite file at `dbPath`
 * (BEGIN IMMEDIATE); the lock is released when it settles, whatever its outcome.
 */
export async function whileSqliteLocked<T>(dbPath: string, action: () => Promise<T>): Promise<T> {
  const locker = new Database(dbPath);
  try {
    locker.exec("BEGIN IMMEDIATE");
    return await action();
  } finally {
    if (locker.inTransaction) locker.exec("ROLLBACK");
    locker.close();
  }
}
