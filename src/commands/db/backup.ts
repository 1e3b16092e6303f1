/**
 * `petstore db backup <out> [--db FILE]`: a checked, consistent copy of the bundled server's
 * SQLite store while the server writes to it; never over an existing file.
 */
import { Command } from "commander";
import { OperatorError } from "../../api/operator-error.js";
import type { BackupReport } from "../../api/store-reports.js";
import { UsageError } from "../../errors.js";
import { EXIT_CODES, OPERATOR_EXIT_CODES } from "../../exit-codes.js";
import { writeBackupReport } from "../../output/db.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

export interface DbBackupOptions {
  /** The SQLite file to copy; the server's default when absent. */
  db?: string;
  json?: boolean;
}

/** The pg_dump command the PostgreSQL refusal gives: the URL stays in its variable. */
export const PG_DUMP_COMMAND =
  'pg_dump --format=custom --file=petstore.dump "$PETSTORE_DATABASE_URL"';

/**
 * Backs up the SQLite store (`--db`, else the server's default file) to the new file `out`
 * and prints what it wrote and what the check found. A PostgreSQL store (PETSTORE_DATABASE_URL,
 * and no --db) is refused with the pg_dump command to use; its URL, which may hold a password,
 * is never printed.
 */
export async function runDbBackup(
  out: string,
  options: DbBackupOptions,
  context: Pick<CommandContext, "io" | "env">,
): Promise<void> {
  // Without --db the store meant is the server's, which PETSTORE_DATABASE_URL makes PostgreSQL's
  // (an operator's shell often sources the service's environment); a file named is that file.
  const url = context.env.PETSTORE_DATABASE_URL;
  if (url !== undefined && url !== "" && options.db === undefined) {
    throw new UsageError(
      "the store lives in PostgreSQL (PETSTORE_DATABASE_URL is set): db backup copies SQLite files only",
      `back it up with pg_dump: ${PG_DUMP_COMMAND}; or name a SQLite file with --db`,
    );
  }
  if (out === "") throw new UsageError("the file to write must not be empty");
  if (options.db === "") throw new UsageError("--db must name a file");
  // `db backup` works on the server's file, as `serve` does: the server's code loads only now.
  const { backupSqliteStore, DEFAULT_DB } = await import("../../server/store/sqlite/backup.js");
  let report: BackupReport;
  try {
    report = backupSqliteStore(options.db ?? DEFAULT_DB, out);
  } catch (error) {
    // Its failures are OperatorErrors (src/program/exit.ts gives their exit codes); a missing
    // default file is most likely a --db left out.
    if (!(
      error instanceof OperatorError &&
      error.reason === "no-source" &&
      options.db === undefined
    )) {
      throw error;
    }
    throw new OperatorError(
      error.failure,
      error.message,
      `${DEFAULT_DB} is petstore serve's file when it runs without --db: name the server's file with --db FILE`,
      error.reason,
    );
  }
  writeBackupReport(report, options.json === true, context.io);
}

/** Defines `db backup`. */
export function dbBackupCommand(factory: Factory): Command {
  return new Command("backup")
    .description("copy the SQLite store while the server runs, check the copy, never overwrite")
    .argument("<out>", "the new file to write (must not exist; its directory must)")
    .option("--db <file>", 'the SQLite file of petstore serve (default: "./petstore.db")')
    .option("--json", "print the report as one JSON object")
    .addHelpText(
      "after",
      `
The copy is one consistent snapshot of the store, taken while the server goes on writing
(SQLite's VACUUM INTO: one read, which in the server's WAL mode never blocks a write). It is
written beside <out> under a temporary name, checked (PRAGMA integrity_check must say ok, and
the schema version must be the one this petstore writes), synced to disk, and only then
named <out>. <out> is never overwritten: when it exists the backup stops before copying, and
a failed check leaves nothing there. The source is opened read-only and must exist.

Report on stdout: the file written, its size, the check, the schema version, and how many
pets (each an inventory entry), orders, history records and idempotency records it holds;
--json prints {"path", "source", "bytes", "integrity", "schemaVersion", "pets", "orders",
"historyRecords", "idempotencyRecords"}.

Exit status: ${EXIT_CODES.ok} when the checked copy is in place; ${OPERATOR_EXIT_CODES.configuration} when <out> exists, the source is missing,
is not a SQLite store or is damaged, or the copy fails its check (nothing is left at <out>);
${OPERATOR_EXIT_CODES.unavailable} when another process kept the source locked for 5 s.

To restore: stop the server, put the copy in place of its file, delete that file's -wal and
-shm files (they belong to the old file), start the server.
A PostgreSQL store (PETSTORE_DATABASE_URL) is backed up with pg_dump instead:
  ${PG_DUMP_COMMAND}
In a crontab, % ends the command: write each % as \\%, as the last example does (every
night at 03:15).

Examples:
  petstore db backup petstore-backup.db
  petstore db backup --json --db /var/lib/petstore/petstore.db "/var/backups/petstore/petstore-$(date +%F).db"
  15 3 * * * petstore db backup --db /var/lib/petstore/petstore.db "/var/backups/petstore/petstore-$(date +\\%F).db"`,
    )
    .action(async (out: string, options: DbBackupOptions, command: Command) => {
      await runDbBackup(out, options, factory.context(readGlobalOptions(command)));
    });
}
