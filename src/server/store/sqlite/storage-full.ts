/**
 * Which SQLite errors mean "the file system is full". Measured with better-sqlite3 12 on a
 * full tmpfs, WAL mode, a single write and a group commit alike: SQLITE_FULL when the WAL (or
 * the database file) cannot grow (SQLite's unix VFS turns a write's ENOSPC into SQLITE_FULL);
 * SQLITE_IOERR_SHMSIZE when the WAL index (`-shm`) must grow by a page and cannot (SQLite
 * extends it by writing a byte per page, and reports any failure so). SQLITE_IOERR_WRITE is
 * not one: the VFS gives it for a write that failed with anything but ENOSPC (EIO: a failing
 * disk), which is a fault, not a full disk.
 */
import Database from "better-sqlite3";
import { StoreFullError } from "../store-full-error.js";

type SqliteError = InstanceType<typeof Database.SqliteError>;

const FULL_CODES: ReadonlySet<string> = new Set(["SQLITE_FULL", "SQLITE_IOERR_SHMSIZE"]);

/** Whether `error` is SQLite refusing a write for lack of space. */
export function isStorageFull(error: unknown): error is SqliteError {
  return error instanceof Database.SqliteError && FULL_CODES.has(error.code);
}

/** The StoreFullError of a write to the file at `path` that SQLite refused for lack of space. */
export function storageFull(path: string, error: SqliteError): StoreFullError {
  return new StoreFullError(
    `the SQLite database ${path} cannot grow: ${error.message} (${error.code})`,
    { cause: error },
  );
}
