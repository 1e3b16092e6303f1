/**
 * `petstore db copy --from PATH`: moves a SQLite store into the empty PostgreSQL database of
 * PETSTORE_DATABASE_URL (the way up when a store outgrows one machine), and prints what it
 * copied. The copy itself is server code (src/server/store/copy/), loaded only when it runs.
 */
import { Command } from "commander";
import { UsageError } from "../../errors.js";
import { OPERATOR_EXIT_CODES } from "../../exit-codes.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

export interface DbCopyOptions {
  from: string;
}

/**
 * Checks the configuration, runs the copy (a progress bar on stderr when it is a terminal) and
 * prints its report on stdout; its failures are OperatorErrors (src/program/exit.ts gives their
 * exit codes). The URL's password shows nowhere: chooseStore and the copy name host and
 * database only.
 */
export async function runDbCopy(
  options: DbCopyOptions,
  { io, env }: Pick<CommandContext, "io" | "env">,
): Promise<void> {
  const url = env.PETSTORE_DATABASE_URL;
  if (url === undefined || url === "") {
    throw new UsageError(
      "PETSTORE_DATABASE_URL is not set: db copy needs the PostgreSQL database to copy into",
      "set it to the URL of an empty database, for example PETSTORE_DATABASE_URL=postgres://petstore@db.internal/petstore (the password in PGPASSWORD or ~/.pgpass, or in the URL)",
    );
  }
  // Like serve, db copy runs server code, loaded only when it runs.
  const [{ chooseStore }, { copyStore }, { startCopyProgress }, { writeCopyReport }] =
    await Promise.all([
      import("../../server/store-choice.js"),
      import("../../server/store/copy/copy-store.js"),
      import("../../output/copy-progress.js"),
      import("../../output/db.js"),
    ]);
  const progress = startCopyProgress(io.progress);
  try {
    const choice = await chooseStore(undefined, env);
    if (choice.kind !== "postgres") throw new Error("PETSTORE_DATABASE_URL was not chosen");
    const report = await copyStore({
      from: options.from,
      url: choice.url,
      onProgress: ({ copied, total, table }) => {
        progress.update(copied, total, table);
      },
    });
    progress.stop();
    writeCopyReport(report, options.from, io);
  } catch (error) {
    progress.stop();
    throw error;
  }
}

/** Defines `db copy`. */
export function dbCopyCommand(factory: Factory): Command {
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
idempotency record is refused (exit ${OPERATOR_EXIT_CODES.configuration}), untouched. Stop the servers on the SQLite file first
(or copy a backup from petstore db backup): a change made during the copy is not moved. Then
start petstore serve with PETSTORE_DATABASE_URL set, on as many instances as needed.
Exit codes: ${OPERATOR_EXIT_CODES.configuration} bad file, variable or target; ${OPERATOR_EXIT_CODES.unavailable} PostgreSQL unreachable or busy; ${OPERATOR_EXIT_CODES.failed} copy failed.

Examples:
  PETSTORE_DATABASE_URL=postgres://petstore@db.internal/petstore petstore db copy --from ./petstore.db
  petstore db copy --from /var/backups/petstore.db`,
    )
    .action(async (options: DbCopyOptions, command: Command) => {
      await runDbCopy(options, factory.context(readGlobalOptions(command)));
    });
}
