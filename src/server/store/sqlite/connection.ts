/**
 * Opening the SQLite file: its settings (WAL, fsync on every commit), the schema brought up to
 * date, and the Node.js 24 keep-alive of every connection and statement.
 */
import Database from "better-sqlite3";
import { migrate } from "./migrations.js";
import { openDatabase } from "./open-database.js";
import { isBusy, lockedFor } from "./lock.js";

/**
 * better-sqlite3 12 wraps connections and statements in node::ObjectWrap, whose destructor on
 * Node.js 24 aborts the process when V8 collects one outside a JavaScript context ("Assertion
 * failed: (env) != nullptr", WiseLibs/better-sqlite3#1515; version 13 fixes it but needs
 * Node.js 22). So none may be collected: every connection and statement a store makes is kept
 * for the life of the process. A server opens one store and prepares its statements once: a
 * few dozen objects.
 */
const RETAINED: object[] = [];

function retain<T extends object>(value: T): T {
  RETAINED.push(value);
  return value;
}

/** Runs a PRAGMA on a kept statement (`db.pragma()` would leave one to the collector). */
export function pragma(db: Database.Database, source: string): unknown {
  const statement = db.prepare(`PRAGMA ${source}`);
  return statement.reader ? statement.pluck().get() : statement.run();
}

/**
 * Opens (creating if needed) the file at `path`, with every statement it ever prepares kept,
 * and migrates it. While opening nothing is served yet, so SQLite may wait for another
 * process's lock in place, up to `lockTimeoutMs` (StoreBusyError past it); the connection it
 * returns fails at once on a lock (busy_timeout 0), for the store to wait asynchronously.
 */
export function openConnection(
  path: string,
  lockTimeoutMs: number,
  now: () => number,
): Database.Database {
  const started = now();
  const db = retain(openDatabase(path));
  const prepare = db.prepare.bind(db);
  // One override on this connection catches every statement, however and whenever made.
  db.prepare = (source: string) => retain(prepare(source));
  try {
    pragma(db, `busy_timeout = ${Math.round(lockTimeoutMs)}`);
    pragma(db, "journal_mode = WAL");
    // FULL: a commit returns only once the WAL is fsynced, so a 200 survives a crash.
    pragma(db, "synchronous = FULL");
    pragma(db, "foreign_keys = ON");
    // Checkpoints reuse the WAL file; this bounds what it keeps on disk after one.
    pragma(db, "journal_size_limit = 16777216");
    db.defaultSafeIntegers(true);
    migrate(db, (source) => pragma(db, source));
    pragma(db, "busy_timeout = 0");
  } catch (error) {
    db.close();
    // SQLite fails at once, without waiting, where waiting could deadlock.
    if (isBusy(error)) throw lockedFor(now() - started);
    throw error;
  }
  return db;
}
