/**
 * `db copy`: moves a SQLite store into an empty PostgreSQL database in one transaction. The
 * schema is created, every table copied a page at a time (one INSERT of arrays per page, the
 * next page read while the last is written), the counters writers take seqs and ids from moved
 * past the copied rows, and the counts of both sides compared before COMMIT: any failure rolls
 * it all back and leaves the target as it was. Messages never show the URL's password.
 */
import type pg from "pg";
import { DEFAULT_LOCK_TIMEOUT_MS } from "../store.js";
import {
  beginTransaction,
  createPool,
  describeDatabase,
  isLockFailure,
  isUnreachable,
  reasonOf,
} from "../postgres/connection.js";
import { classifyRefusal } from "../postgres/refusal.js";
import { OperatorError } from "../../../api/operator-error.js";
import { advanceCounters, countTarget, prepareTarget } from "./postgres-target.js";
import { openSqliteSource, type SqliteSource } from "./sqlite-source.js";
import { COPIED_TABLES, type CopiedTable } from "./tables.js";
import type { CopiedCount, CopyReport } from "../../../api/store-reports.js";

export interface CopyOptions {
  /** The SQLite file. */
  from: string;
  /** postgres://… of the target database. */
  url: string;
  /** How long to wait for another session's lock on the target (default 5 s). */
  lockTimeoutMs?: number;
  /** How long connecting may take before the database counts as unreachable (default 5 s). */
  connectTimeoutMs?: number;
  /**
   * Told how far the copy got: once the source is counted (0 copied), then after each page
   * the target has taken. `copied` and `total` count the rows of every table.
   */
  onProgress?: ((progress: CopyProgress) => void) | undefined;
}

/** How far a copy got, for a progress bar. */
export interface CopyProgress {
  /** The report's label of the table being copied. */
  table: string;
  copied: number;
  total: number;
}

/** Where the copy got to, for what a lost connection means. */
interface Progress {
  commitSent: boolean;
}

/**
 * Copies the store at `from` into the database at `url`. Rejects with OperatorError:
 * `configuration` (the file, a target that is not empty or newer, a refused login, a missing
 * database, an address that is not PostgreSQL), `unavailable` (the database unreachable or
 * without a connection to spare, a pooler without a server connection, or locked by another
 * session), `failed` (rolled back). A refusal to connect is worded by postgres/refusal.ts.
 */
export async function copyStore(options: CopyOptions): Promise<CopyReport> {
  const started = performance.now();
  const where = describeDatabase(options.url);
  const source = openSqliteSource(options.from);
  try {
    const pool = createPool(options.url, {
      poolSize: 1,
      connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    });
    const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    // An idle connection failing is seen by the next query; the pool must not throw it.
    pool.on("error", () => undefined);
    try {
      const client = await connect(pool, options.url, where);
      const progress: Progress = { commitSent: false };
      let failed: unknown;
      try {
        const { counts, lastSeq } = await copyInTransaction(
          client,
          source,
          where,
          progress,
          lockTimeoutMs,
          options.onProgress,
        );
        return { target: where, counts, lastSeq, elapsedMs: performance.now() - started };
      } catch (error) {
        failed = error;
        await client.query("ROLLBACK").catch(() => undefined);
        throw explain(error, options.url, where, progress);
      } finally {
        client.release(failed instanceof Error && isUnreachable(failed) ? failed : undefined);
      }
    } finally {
      await pool.end().catch(() => undefined);
    }
  } finally {
    source.close();
  }
}

async function connect(pool: pg.Pool, url: string, where: string): Promise<pg.PoolClient> {
  try {
    const client = await pool.connect();
    // A connection lost while SQLite is read fails the next query; it must not crash us.
    client.on("error", () => undefined);
    return client;
  } catch (error) {
    const message = `cannot use PostgreSQL ${where}: ${reasonOf(error, url)}`;
    const refusal = classifyRefusal(error, url, "connecting");
    if (refusal !== undefined) throw new OperatorError(refusal.failure, message, refusal.hint);
    if (isUnreachable(error)) {
      throw new OperatorError(
        "unavailable",
        message,
        "check that PostgreSQL is running and that this host can reach it",
      );
    }
    throw new OperatorError("configuration", message);
  }
}

async function copyInTransaction(
  client: pg.PoolClient,
  source: SqliteSource,
  where: string,
  progress: Progress,
  lockTimeoutMs: number,
  onProgress: ((progress: CopyProgress) => void) | undefined,
): Promise<{ counts: CopiedCount[]; lastSeq: bigint }> {
  const before = source.counts(COPIED_TABLES.map((table) => table.source));
  const total = Number([...before.rows.values()].reduce((sum, rows) => sum + rows, 0n));
  let copied = 0;
  await beginTransaction(client, lockTimeoutMs);
  await prepareTarget(client, where);
  onProgress?.({ table: COPIED_TABLES[0]?.label ?? "", copied, total });
  for (const table of COPIED_TABLES) {
    await copyTable(client, source, table, (rows) => {
      copied += rows;
      onProgress?.({ table: table.label, copied, total });
    });
  }
  await advanceCounters(client, before.lastSeq);
  const after = await countTarget(client);
  const counts: CopiedCount[] = COPIED_TABLES.map((table) => ({
    label: table.label,
    source: before.rows.get(table.source) ?? 0n,
    copied: after.rows.get(table.target) ?? 0n,
  }));
  counts.push({ label: "units in stock", source: before.units, copied: after.units });
  const differ = counts.filter((count) => count.copied !== count.source);
  if (differ.length > 0) {
    const which = differ.map(
      (count) => `${count.label}: ${count.source} in SQLite, ${count.copied} in PostgreSQL`,
    );
    throw new OperatorError(
      "failed",
      `the counts differ after copying into ${where} (${which.join("; ")}); ` +
        "rolled back, the target is as it was",
    );
  }
  progress.commitSent = true;
  const commit = await client.query("COMMIT");
  // A COMMIT of a transaction that failed is answered ROLLBACK, not an error.
  if (commit.command !== "COMMIT") {
    throw new OperatorError("failed", `PostgreSQL answered ${commit.command} to COMMIT`);
  }
  return { counts, lastSeq: before.lastSeq };
}

/**
 * Inserts `table`'s rows page by page, one INSERT in flight while the next page is read;
 * `onCopied` is told each page's rows once the target has taken them.
 */
async function copyTable(
  client: pg.PoolClient,
  source: SqliteSource,
  table: CopiedTable,
  onCopied: (rows: number) => void,
): Promise<void> {
  let writing: Promise<unknown> | undefined;
  for (const rows of source.pages(table)) {
    await writing;
    writing = client
      .query({
        // Unnamed, as every statement of ours (postgres/connection.ts says why).
        text: table.insert,
        values: table.values(rows),
      })
      .then(() => {
        onCopied(rows.length);
      });
    // Awaited on the next turn; until then a failure must not count as unhandled.
    writing.catch(() => undefined);
  }
  await writing;
}

/** The OperatorError `error` means, its message without the URL's password. */
function explain(error: unknown, url: string, where: string, progress: Progress): OperatorError {
  if (error instanceof OperatorError) return error;
  const reason = reasonOf(error, url);
  // A pooler in transaction mode finds a server connection at the first statement, so its
  // refusals (no server connection, its admin console) come here, before anything is copied.
  const refusal = progress.commitSent ? undefined : classifyRefusal(error, url, "connected");
  if (refusal !== undefined) {
    return new OperatorError(
      refusal.failure,
      `cannot use PostgreSQL ${where}: ${reason}`,
      refusal.hint,
    );
  }
  if (isUnreachable(error)) {
    return progress.commitSent
      ? new OperatorError(
          "unavailable",
          `the connection to PostgreSQL ${where} was lost during COMMIT: the copy may or may not have been written (${reason})`,
          "start petstore serve on it and run petstore inventory list: if the store is empty, run db copy again",
        )
      : new OperatorError(
          "unavailable",
          `the connection to PostgreSQL ${where} was lost: nothing was copied (${reason})`,
          "check that PostgreSQL is running, then run db copy again",
        );
  }
  if (isLockFailure(error)) {
    return new OperatorError(
      "unavailable",
      `PostgreSQL ${where} is in use: another session held a lock on the store for too long (${reason}); nothing was copied`,
      "stop the petstore servers using that database, then run db copy again",
    );
  }
  return new OperatorError(
    "failed",
    `cannot copy into PostgreSQL ${where}: ${reason}; rolled back, the target is as it was`,
  );
}
