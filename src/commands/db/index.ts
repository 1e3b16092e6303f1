/** `petstore db`: groups the verbs that work on the bundled server's database files. */
import { Command } from "commander";
import { dbBackupCommand } from "./backup.js";
import { dbCopyCommand } from "./copy.js";
import type { Factory } from "../../program/factory.js";

/** Defines `db` and its verbs. */
export function dbCommand(factory: Factory): Command {
  return new Command("db")
    .description("back up the bundled server's SQLite store, or move it to PostgreSQL")
    .addCommand(dbBackupCommand(factory))
    .addCommand(dbCopyCommand(factory))
    .addHelpText(
      "after",
      `
Examples:
  petstore db backup --db /var/lib/petstore/petstore.db /var/backups/petstore/nightly.db
  PETSTORE_DATABASE_URL=postgres://petstore@db.internal/petstore petstore db copy --from /var/lib/petstore/petstore.db`,
    );
}
