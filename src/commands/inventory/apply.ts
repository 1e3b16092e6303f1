/** `petstore inventory apply <file>`: reconciles stock with a file of counted quantities. */
import { Command, Option } from "commander";
import { COUNTS_FORMATS } from "../../apply/counts.js";
import { REASON_OPTION_HELP, reasonOption, wholeNumberOption } from "../../program/arguments.js";
import type { Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";
// Only the type: the run function (CSV parser, progress bar) loads when apply runs.
import type { InventoryApplyOptions } from "./apply-run.js";

const DEFAULT_CONCURRENCY = 8;
const MAX_CONCURRENCY = 64;

/** Defines `inventory apply`. */
export function inventoryApplyCommand(factory: Factory): Command {
  return new Command("apply")
    .description(
      "set the stock of many pets from a CSV or JSON file of counts, changing only what differs",
    )
    .argument(
      "<file>",
      "CSV with a petId,quantity header, or a JSON array of {petId, quantity}; - reads stdin",
    )
    .addOption(
      new Option(
        "--format <format>",
        "input format (default: from the extension, else the content)",
      ).choices(COUNTS_FORMATS),
    )
    .option("--dry-run", "print what would change, change nothing")
    .addOption(
      new Option(
        "--max-changes <n>",
        "refuse the whole run (exit 2) if more than n entries would change",
      ).argParser(wholeNumberOption("a whole number of entries", 0, Number.MAX_SAFE_INTEGER)),
    )
    .addOption(
      new Option("--concurrency <n>", "PATCH requests in flight at once")
        .argParser(wholeNumberOption("a whole number of requests", 1, MAX_CONCURRENCY))
        .default(DEFAULT_CONCURRENCY),
    )
    .option(
      "--force",
      "write every changed row even if its entry changed since it was read (no If-Match)",
    )
    .addOption(
      new Option("--reason <text>", `${REASON_OPTION_HELP}; default "apply <file name>"`).argParser(
        reasonOption,
      ),
    )
    .option("--json", "print the report (or with --dry-run, the plan) as JSON")
    .addHelpText(
      "after",
      `
The whole file is checked first: a bad row or a duplicate petId stops the run (exit 2)
naming the line, and nothing is changed. Then the current stock is fetched once and only
the pets whose quantity differs are set, each only if it still holds the quantity that was
read (If-Match). A pet someone else changed meanwhile is not overwritten: its row is a
"conflict" (the report says what it holds now). A row the server refuses (for example an
unknown pet) fails alone; the others are still applied, and the exit code is 7. Running the
same file again reads the stock again and changes only what still differs, so a failed,
conflicting or interrupted run can simply be repeated; --force writes over concurrent changes.
Interrupted (Ctrl-C, SIGTERM), it starts no more changes, lets those in flight finish, prints
the report (rows not started are "not attempted") and exits 130 or 143; a second interrupt
stops at once.

Report: a summary, the changes and every failure on stdout (--json: {"changed", "unchanged",
"failed", "results"}); a progress bar on stderr when it is a terminal.

Examples:
  petstore inventory apply counts.csv --dry-run
  petstore inventory apply counts.csv
  petstore inventory apply counts.csv --reason "stocktake 2026-11"
  petstore inventory apply --max-changes 500 --json counts.csv >> /var/log/petstore-apply.log
  export-counts | petstore inventory apply --format csv -`,
    )
    .action(async (file: string, options: InventoryApplyOptions, command: Command) => {
      const globals = readGlobalOptions(command);
      // The CSV parser and progress bar load only when apply runs, not for every command.
      const { runInventoryApply } = await import("./apply-run.js");
      await runInventoryApply(file, options, factory.context(globals));
    });
}
