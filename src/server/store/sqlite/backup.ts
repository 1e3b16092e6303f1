/**
 * `petstore db backup`: a consistent copy of a SQLite store while a server may be writing to
 * it, written beside the destination under a temporary name, checked, and only then put in
 * place, never over an existing file.
 */
import { randomBytes } from "node:crypto";
import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import Database from "better-sqlite3";
import { OperatorError } from "../../../api/operator-error.js";
import { fileErrorReason } from "../../../api/file-error.js";
import { backupError } from "./backup-error.js";
import { MIGRATIONS } from "./migrations.js";
import { openDatabase } from "./open-database.js";
import type { BackupReport } from "../../../api/store-reports.js";

// What `petstore db backup` needs of the server besides the function, from the one module it
// loads: the file it copies by default is the one `petstore serve` opens by default.
export type { BackupFailure } from "./backup-error.js";
export { DEFAULT_DB } from "../../store-choice.js";

/** The schema version this petstore writes (`PRAGMA user_version`): one per migration. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * How long opening and reading the source may wait for another process's lock. In WAL mode (the
 * server's) a reader waits only for the moments SQLite itself needs (WAL recovery); a file in
 * rollback mode waits for a writer's commit.
 */
const LOCK_TIMEOUT_MS = 5_000;

/**
 * better-sqlite3 12 aborts Node.js 24 when V8 collects one of its connections or statements
 * outside a JavaScript context (connection.ts says more): a backup keeps what it makes, a
 * few objects, for the life of the process.
 */
const KEPT: object[] = [];

function keep<T extends object>(value: T): T {
  KEPT.push(value);
  return value;
}

/**
 * Copies the SQLite store at `source` to the new file `out` and checks the copy: integrity,
 * the schema version this petstore writes, and the counts it reports. The copy is made as
 * `<out>.<random>.tmp` in `out`'s directory, synced to disk, and put at `out` only once it
 * passed, by a hard link, which fails rather than replace a file that appeared meanwhile; on
 * any failure the temporary file is removed and `out` does not exist. Synchronous from start
 * to end, so a signal handler of this process runs only once it is over. Throws OperatorError
 * for everything an operator can act on.
 */
export function backupSqliteStore(source: string, out: string): BackupReport {
  refuseExisting(out);
  const directory = dirname(out);
  requireDirectory(directory);
  const mode = requireSource(source);
  const temp = reserveTemporary(out, mode);
  try {
    copySnapshot(source, temp);
    const checked = checkCopy(temp, source);
    syncFile(temp);
    placeWithoutOverwriting(temp, out);
    syncDirectory(directory);
    return { path: out, source, bytes: statSync(out).size, ...checked };
  } finally {
    removeIfPresent(temp);
  }
}

function refuseExisting(out: string): void {
  const existing = lstatSync(out, { throwIfNoEntry: false });
  if (existing === undefined) return;
  if (existing.isDirectory()) {
    throw backupError(
      "out-exists",
      `${out} is a directory: name the file to write`,
      `for example: petstore db backup ${join(out, "petstore-$(date +%F).db")}`,
    );
  }
  throw backupError(
    "out-exists",
    `${out} already exists: a backup never overwrites a file`,
    "name a new file (with the date in it, say), or move the old one away first",
  );
}

function requireDirectory(directory: string): void {
  const found = statSync(directory, { throwIfNoEntry: false });
  if (found === undefined) {
    throw backupError(
      "cannot-write",
      `the directory ${directory} does not exist`,
      `create it first: mkdir -p ${directory}`,
    );
  }
  if (!found.isDirectory()) {
    throw backupError("cannot-write", `${directory} is not a directory`);
  }
}

/** Checks that `source` is a readable file; gives the permission bits the copy gets: its own. */
function requireSource(source: string): number {
  const found = statSync(source, { throwIfNoEntry: false });
  if (found === undefined) {
    throw backupError("no-source", `no database file at ${source}`);
  }
  if (!found.isFile()) {
    throw backupError("no-source", `${source} is not a database file`);
  }
  try {
    accessSync(source, constants.R_OK);
  } catch {
    throw backupError("no-source", `cannot read ${source}: permission denied`);
  }
  // The owner must write the copy (and a server on a restored copy its file) even when the
  // source is read-only.
  return (found.mode & 0o777) | 0o600;
}

/**
 * Creates the empty temporary file, exclusively, so that no other run can be writing it, with
 * the source's permissions: the copy holds the same data.
 */
function reserveTemporary(out: string, mode: number): string {
  const temp = join(dirname(out), `${basename(out)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    closeSync(openSync(temp, "wx", mode));
  } catch (error) {
    throw cannotWrite(dirname(out), error);
  }
  return temp;
}

/**
 * Writes a snapshot of `source` into the empty file `temp` with VACUUM INTO rather than the
 * online backup API: one statement in one read transaction, so the copy is the database as of
 * one commit however busy the server is, and nothing can make it start over (the backup API
 * restarts when another process writes between its steps, unless told to copy every page in
 * one step, which better-sqlite3 reaches only through its progress callback). In WAL mode, the
 * server's, this reader neither blocks the server's writes nor waits for them. The copy comes
 * out compacted and in rollback-journal mode, one self-contained file (a server turns WAL on
 * when it opens it). SQLite does not fsync it: backupSqliteStore does.
 */
function copySnapshot(source: string, temp: string): void {
  let db: Database.Database;
  try {
    db = keep(
      openDatabase(source, { readonly: true, fileMustExist: true, timeout: LOCK_TIMEOUT_MS }),
    );
  } catch (error) {
    throw unreadableSource(source, error);
  }
  try {
    keep(db.prepare("VACUUM INTO ?")).run(temp);
  } catch (error) {
    const code = sqliteCode(error);
    if (code === "SQLITE_FULL" || code.startsWith("SQLITE_IOERR")) {
      throw backupError(
        "cannot-write",
        `copying ${source} into ${dirname(temp)} failed: ${messageOf(error)}`,
      );
    }
    throw unreadableSource(source, error);
  } finally {
    db.close();
  }
}

type Checked = Pick<
  BackupReport,
  "integrity" | "schemaVersion" | "pets" | "orders" | "historyRecords" | "idempotencyRecords"
>;

/** Opens the copy read-only and checks it; throws a `check-failed` backupError when it fails. */
function checkCopy(temp: string, source: string): Checked {
  const db = keep(openDatabase(temp, { readonly: true, fileMustExist: true }));
  const rows = (sql: string): unknown[] => keep(db.prepare(sql)).pluck().all();
  const value = (sql: string): number => Number(keep(db.prepare(sql)).pluck().get());
  try {
    const problems = rows("PRAGMA integrity_check");
    if (problems.length !== 1 || problems[0] !== "ok") {
      throw backupError(
        "check-failed",
        `the copy of ${source} failed PRAGMA integrity_check: ${problems.slice(0, 3).join("; ")}`,
        `${source} itself may be damaged: check it with sqlite3 ${source} "PRAGMA integrity_check"`,
      );
    }
    const schemaVersion = value("PRAGMA user_version");
    if (schemaVersion !== SCHEMA_VERSION) throw wrongSchema(source, schemaVersion);
    return {
      integrity: "ok",
      schemaVersion,
      pets: value("SELECT count(*) FROM pets"),
      orders: value("SELECT count(*) FROM orders"),
      historyRecords: value("SELECT count(*) FROM inventory_changes"),
      idempotencyRecords: value("SELECT count(*) FROM idempotency_records"),
    };
  } catch (error) {
    if (error instanceof OperatorError) throw error;
    throw backupError(
      "check-failed",
      `the copy of ${source} could not be checked: ${messageOf(error)}`,
    );
  } finally {
    db.close();
  }
}

function wrongSchema(source: string, version: number): OperatorError {
  if (version === 0) {
    return backupError(
      "check-failed",
      `${source} is not a petstore store (its schema version is 0)`,
      "name the server's database file with --db",
    );
  }
  if (version > SCHEMA_VERSION) {
    return backupError(
      "check-failed",
      `${source} has schema version ${version}, newer than this petstore writes (${SCHEMA_VERSION})`,
      "back it up with the petstore version that serves it",
    );
  }
  return backupError(
    "check-failed",
    `${source} has schema version ${version}, older than this petstore writes (${SCHEMA_VERSION})`,
    "back it up with the petstore version that serves it, or let this version's petstore serve migrate it first",
  );
}

/**
 * Gives the checked copy the name `out` with a hard link, which fails with EEXIST rather than
 * replace a file, so a file that appeared at `out` while copying stays as it was. (A rename
 * would replace it; Node.js has no rename that refuses to.) The temporary name is removed
 * by the caller.
 */
function placeWithoutOverwriting(temp: string, out: string): void {
  try {
    linkSync(temp, out);
  } catch (error) {
    if (errnoCode(error) === "EEXIST") {
      throw backupError(
        "out-exists",
        `${out} appeared while the copy was made: it was left as it is and no copy was kept`,
        "name a new file, and make sure no other job writes backups to the same name",
      );
    }
    if (["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"].includes(errnoCode(error))) {
      throw backupError(
        "cannot-write",
        `the file system of ${dirname(out)} has no hard links, which a backup needs to put the copy in place without overwriting anything`,
        "write the backup on another file system, then move it",
      );
    }
    throw cannotWrite(dirname(out), error);
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, "r+");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes the new name durable; where a directory cannot be opened (Windows) it is skipped. */
function syncDirectory(directory: string): void {
  let fd: number;
  try {
    fd = openSync(directory, "r");
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems refuse to fsync a directory: the file itself is synced already.
  } finally {
    closeSync(fd);
  }
}

function removeIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (errnoCode(error) !== "ENOENT") throw error;
  }
}

function unreadableSource(source: string, error: unknown): OperatorError {
  const code = sqliteCode(error);
  if (code === "SQLITE_NOTADB") {
    return backupError("unreadable-source", `${source} is not a SQLite database`);
  }
  if (code.startsWith("SQLITE_CORRUPT")) {
    return backupError(
      "unreadable-source",
      `${source} is damaged: ${messageOf(error)}`,
      "keep the file aside for inspection and restore the last good backup",
    );
  }
  if (code.startsWith("SQLITE_BUSY")) {
    return backupError(
      "locked",
      `${source} stayed locked by another process for ${LOCK_TIMEOUT_MS / 1000} s`,
      "try again; a server in WAL mode (petstore serve) never holds such a lock for long",
    );
  }
  const reason = code === "" ? fileErrorReason(error) : messageOf(error);
  return backupError("unreadable-source", `cannot read ${source}: ${reason}`);
}

function cannotWrite(directory: string, error: unknown): OperatorError {
  return backupError(
    "cannot-write",
    `cannot write the copy in ${directory}: ${fileErrorReason(error)}`,
  );
}

function sqliteCode(error: unknown): string {
  return error instanceof Database.SqliteError ? error.code : "";
}

function errnoCode(error: unknown): string {
  return error instanceof Error && "code" in error && typeof error.code === "string"
    ? error.code
    : "";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
