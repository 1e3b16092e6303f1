/**
 * The SQLite store `db copy` reads: opened read-only (never created, never written), its
 * schema version checked, and every read inside one read transaction, so all tables come from
 * one snapshot of the file even if a server still writes to it.
 */
import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { MIGRATIONS } from "../sqlite/migrations.js";
import { openDatabase } from "../sqlite/open-database.js";
import { OperatorError } from "../../../api/operator-error.js";
import { fileErrorReason } from "../../../api/file-error.js";
import type { CopiedTable, SourceRow } from "./tables.js";

/**
 * Kept for the life of the process, as sqlite/connection.ts keeps the server's: better-sqlite3
 * 12 aborts Node.js 24 when V8 collects a connection or a statement. A copy makes a dozen.
 */
const RETAINED: object[] = [];

/** Below every rowid, so the first page starts at the first row. */
const BEFORE_FIRST = -(2n ** 63n);

/** What the snapshot holds, counted before anything is copied. */
export interface SourceCounts {
  /** Rows per SQLite table. */
  rows: ReadonlyMap<string, bigint>;
  /** The sum of every entry's quantity. */
  units: bigint;
  /** The largest history record id, which is the largest seq (0 without history). */
  lastSeq: bigint;
}

/** An open SQLite store, read in pages. */
export interface SqliteSource {
  /** Counts the rows of `tables` (names from tables.ts, never input), units and last seq. */
  counts(tables: readonly string[]): SourceCounts;
  /** Yields `table`'s rows a page at a time, in id order. */
  pages<Row extends SourceRow>(table: CopiedTable<Row>): Generator<Row[]>;
  close(): void;
}

/** Says why `path` cannot be read, naming it. */
function unreadable(path: string, reason: string, hint?: string): OperatorError {
  return new OperatorError("configuration", `cannot copy from ${path}: ${reason}`, hint);
}

/**
 * Opens the store at `path` read-only and checks that its schema is one this petstore reads
 * (OLDEST_COPIED_VERSION to the latest); OperatorError (`configuration`) naming the file
 * otherwise.
 */
export function openSqliteSource(path: string): SqliteSource {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (error) {
    throw unreadable(
      path,
      fileErrorReason(error),
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? "--from names the SQLite file petstore serve --db used (its default is ./petstore.db)"
        : undefined,
    );
  }
  if (!isFile) throw unreadable(path, "not a file");
  let db: Database.Database;
  try {
    db = openDatabase(path, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw unreadable(path, (error as Error).message);
  }
  RETAINED.push(db);
  const prepare = (source: string): Database.Statement => {
    const statement = db.prepare(source);
    RETAINED.push(statement);
    return statement;
  };
  let version = 0;
  try {
    db.defaultSafeIntegers(true);
    prepare("PRAGMA busy_timeout = 5000").run();
    version = Number(prepare("PRAGMA user_version").pluck().get());
    checkVersion(path, version);
    // Ended by close(): every read below sees the file as of the first one.
    prepare("BEGIN").run();
  } catch (error) {
    db.close();
    if (error instanceof OperatorError) throw error;
    throw unreadable(path, (error as Error).message);
  }
  /** Runs a read of the snapshot; a failure (an I/O error, say) names the file. */
  const reading = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      throw unreadable(path, (error as Error).message);
    }
  };
  const count = (sql: string) => reading(() => prepare(sql).pluck().get() as bigint);
  const end = prepare("ROLLBACK");
  return {
    counts(tables) {
      const rows = new Map<string, bigint>();
      for (const table of tables) rows.set(table, count(`SELECT count(*) FROM ${table}`));
      return {
        rows,
        units: count("SELECT coalesce(sum(quantity), 0) FROM pets"),
        lastSeq: count("SELECT coalesce(max(id), 0) FROM inventory_changes"),
      };
    },
    *pages<Row extends SourceRow>(table: CopiedTable<Row>) {
      const older = table.selectBefore;
      const select = prepare(older && version < older.version ? older.select : table.select);
      let after = BEFORE_FIRST;
      for (;;) {
        const rows = reading(() => select.all(after, BigInt(table.pageSize)) as Row[]);
        if (rows.length === 0) return;
        yield rows;
        after = rows[rows.length - 1]?.id ?? after;
      }
    },
    close() {
      if (db.inTransaction) end.run();
      db.close();
    },
  };
}

/**
 * The oldest schema version the copy reads. The tables it reads are the same from version 8
 * (the feed's seq) to the latest: SQLite's versions 9, 10 and 14 moved the number only
 * (PostgreSQL's renamed its idempotency table, indexed its changes by pet and seq, and made
 * refs compare byte by byte), so a store made by a petstore of version 8 is copied as is;
 * version 13's records' seq is read as null from an older file (tables.ts, selectBefore).
 * A migration that changes a table the copy reads must raise this, or read both shapes.
 */
export const OLDEST_COPIED_VERSION = 8;

/** Refuses a schema this petstore does not read, saying what to do. */
function checkVersion(path: string, version: number): void {
  const current = MIGRATIONS.length;
  if (version >= OLDEST_COPIED_VERSION && version <= current) return;
  if (version === 0) {
    throw unreadable(path, "not a petstore store (it has no petstore schema)");
  }
  if (version > current) {
    throw unreadable(
      path,
      `its schema version ${version} is newer than this petstore knows (${current})`,
      "run db copy with the petstore version that wrote the file",
    );
  }
  throw unreadable(
    path,
    `its schema version ${version} is older than the one this petstore copies (${OLDEST_COPIED_VERSION})`,
    `start petstore serve --db ${path} once (it upgrades the file), stop it, and run db copy again`,
  );
}
