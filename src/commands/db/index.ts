/** `petstore db`: groups the verbs that work on the bundled server's database files. */
import { Command } from "commander";
import { dbBackupCommand } from "./backup.js";
import { dbCopyCommand } from "./copy.js";
import type { DbIo } from "./db-io.js";

/** Defines `db` and its verbs. */
export function dbCommand(io: DbIo): Command {
  return new Command("db")
    .description("back up the bundled server's SQLite store, or move it to PostgreSQL")
    .addCommand(dbBackupCommand(io))
    .addCommand(dbCopyCommand(io))
    .addHelpText(
      "after",
      `
Examples:
  petstore db backup --db /var/lib/petstore/petstore.db /var/backups/petstore/nightly.db
  PETSTORE_DATABASE_URL=postgres://petstore@db.internal/petstore petstore db copy --from /var/lib/petstore/petstore.db`,
    );
}
