/**
 * `petstore db copy --from PATH`: moves a SQLite store into the empty PostgreSQL database of
 * PETSTORE_DATABASE_URL (the way up when a store outgrows one machine), and prints what it
 * copied. The copy itself is server code (src/server/store/copy/), loaded only when it runs.
 */
import { Command } from "commander";
import { UsageError } from "../../errors.js";
// Like serve, db copy runs server code: its types here, its code loaded in runDbCopy only.
import type { CopyReport } from "../../server/store/copy/copy-store.js";
import type { DbIo } from "./db-io.js";

export interface DbCopyOptions {
  from: string;
}

/** The report: a line per table, its rows in SQLite and in PostgreSQL, then what comes next. */
export function formatCopyReport(report: CopyReport, from: string): string {
  const rows = [
    ["", "source", "copied"],
    ...report.counts.map((count) => [count.label, String(count.source), String(count.copied)]),
  ];
  const widths = [0, 1, 2].map((column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  const lines = rows.map(([label = "", source = "", copied = ""]) =>
    [label.padEnd(widths[0] ?? 0), source.padStart(widths[1] ?? 0), copied.padStart(widths[2] ?? 0)]
      .join("  ")
      .trimEnd(),
  );
  const seconds = (report.elapsedMs / 1000).toFixed(1);
  return [
    ...lines,
    `done: copied ${from} into ${report.target} in ${seconds} s; the change feed goes on after seq ${report.lastSeq}`,
    "next: stop using the SQLite file, and start petstore serve with PETSTORE_DATABASE_URL set (without --db) on every instance",
    "",
  ].join("\n");
}

/**
 * Checks the configuration, runs the copy (a progress bar on stderr when it is a terminal) and
 * prints its report on stdout; its failures are OperatorErrors (src/program/exit.ts gives their
 * exit codes). The URL's password shows nowhere: chooseStore and the copy name host and
 * database only.
 */
export async function runDbCopy(options: DbCopyOptions, io: DbIo): Promise<void> {
  const url = io.env.PETSTORE_DATABASE_URL;
  if (url === undefined || url === "") {
    throw new UsageError(
      "PETSTORE_DATABASE_URL is not set: db copy needs the PostgreSQL database to copy into",
      "set it to the URL of an empty database, for example PETSTORE_DATABASE_URL=postgres://petstore@db.internal/petstore (the password in PGPASSWORD or ~/.pgpass, or in the URL)",
    );
  }
  const [{ chooseStore }, { copyStore }, { startCopyProgress }] = await Promise.all([
    import("../../server/store-choice.js"),
    import("../../server/store/copy/copy-store.js"),
    import("../../output/copy-progress.js"),
  ]);
  const progress = startCopyProgress(io.progress);
  try {
    const choice = await chooseStore(undefined, io.env);
    if (choice.kind !== "postgres") throw new Error("PETSTORE_DATABASE_URL was not chosen");
    const report = await copyStore({
      from: options.from,
      url: choice.url,
      onProgress: ({ copied, total, table }) => {
        progress.update(copied, total, table);
      },
    });
    progress.stop();
    io.stdout.write(formatCopyReport(report, options.from));
  } catch (error) {
    progress.stop();
    throw error;
  }
}

/** Defines `db copy`. */
export function dbCopyCommand(io: DbIo): Command {
  return new Command("copy")
    .description("move a SQLite store into the empty PostgreSQL database of PETSTORE_DATABASE_URL")
    .requiredOption(
      "--from <path>",
      "the SQLite file petstore serve --db used (opened read-only, never changed)",
    )
    .addHelpText(
      "after",
      `
Creates the schema in the PostgreSQL database of PETSTORE_DATABASE_URL and copies pets, orders,
stock, history records (with their seqs and refs, so feed cursors stay valid) and idempotency
records, in one transaction: the counts of both sides are compared before it commits, and any
failure leaves the database as it was. A database that holds any pet, order, history or
idempotency record is refused (exit 2), untouched. Stop the servers on the SQLite file first
(or copy a backup from petstore db backup): a change made during the copy is not moved. Then
start petstore serve with PETSTORE_DATABASE_URL set, on as many instances as needed.
Exit codes: 2 bad file, variable or target; 3 PostgreSQL unreachable or busy; 1 copy failed.

Examples:
  PETSTORE_DATABASE_URL=postgres://petstore@db.internal/petstore petstore db copy --from ./petstore.db
  petstore db copy --from /var/backups/petstore.db`,
    )
    .action(async (options: DbCopyOptions) => {
      await runDbCopy(options, io);
    });
}
