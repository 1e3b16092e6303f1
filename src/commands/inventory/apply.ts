/** `petstore inventory apply <file>`: reconciles stock with a file of counted quantities. */
import { Command, Option } from "commander";
import { BATCH_SIZE } from "../../apply/batch-size.js";
import { COUNTS_FORMATS } from "../../apply/counts.js";
import { MAX_BATCH_CHANGES } from "../../api/limits.js";
import {
  REASON_OPTION_HELP,
  reasonOption,
  seqOption,
  wholeNumberOption,
} from "../../program/arguments.js";
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
    .option(
      "--dry-run",
      "ask the server what would change and what would fail; change nothing (exit as the run would)",
    )
    .addOption(
      new Option(
        "--max-changes <n>",
        "refuse the whole run (exit 2) if more than n entries would change",
      ).argParser(wholeNumberOption("a whole number of entries", 0, Number.MAX_SAFE_INTEGER)),
    )
    .option(
      "--atomic",
      `apply every change or none: one atomic batch (at most ${MAX_BATCH_CHANGES} changes); exit 7 and nothing changed if one fails`,
    )
    .addOption(
      new Option(
        "--as-of <seq>",
        "post each row as a count true as of this change-feed seq (a filled count sheet's): the server adds every movement since",
      ).argParser(seqOption),
    )
    .option(
      "--force",
      "write every changed row even if its entry changed since it was read (no ifQuantity, no If-Match)",
    )
    .addOption(
      new Option(
        "--concurrency <n>",
        "PATCH requests in flight at once, against a server without the batch endpoint",
      )
        .argParser(wholeNumberOption("a whole number of requests", 1, MAX_CONCURRENCY))
        .default(DEFAULT_CONCURRENCY),
    )
    .addOption(
      new Option("--reason <text>", `${REASON_OPTION_HELP}; default "apply <file name>"`).argParser(
        reasonOption,
      ),
    )
    .option("--json", "print the report (or with --dry-run, what would happen) as JSON")
    .addHelpText(
      "after",
      `
The whole file is checked first: a bad row or a duplicate petId stops the run (exit 2)
naming the line, and nothing is changed. Then the current stock is fetched once and only
the pets whose quantity differs are sent, in batches of up to ${BATCH_SIZE} changes (POST
/inventory/batch), each set only if the pet still holds the quantity that was read. A pet
someone else changed meanwhile is not overwritten: its row is a "conflict" (the report says
what it holds now). A row the server refuses (an unknown pet) fails alone; the others are
still applied, and the exit code is 7. With --atomic the whole file is one batch: if any row
would fail, nothing is changed (exit 7, the report says which rows failed). Running the same
file again reads the stock again and changes only what still differs, so a failed,
conflicting or interrupted run can simply be repeated; --force writes over concurrent
changes.

--dry-run sends the same batches marked as a dry run: the server says what each row would
do, nothing is written, and the exit code is the one the run would have (7 when a row would
fail, 2 over --max-changes).

A server that answers the batch endpoint 404 or 405 (one that implements only the spec) gets
one PATCH per row (If-Match), --concurrency at a time, said once on stderr; --atomic then
exits 2 having changed nothing, and --dry-run shows only what differs from the stock read.

--as-of SEQ posts each row as a count (inventory count --sheet prints a sheet to fill in, headed
by its seq): the pet's quantity becomes the row's plus every change of that pet after SEQ, so
sales made since the sheet was printed are kept. A row whose quantity (or counted) cell is blank
is a pet not counted, left out. Each count carries the ref count:SEQ:<petId>: posting the same
sheet again changes nothing, even with a cell corrected since (a note names those pets; correct
one with inventory adjust by the difference). Not with --force or --max-changes. A count sheet
(its heading, or a counted column) is refused without --as-of, or as of another seq than its
heading's: set as plain quantities, it would undo the sales made since it was printed.

Interrupted (Ctrl-C, SIGTERM), it prints the report and exits 130 or 143: while reading the
file or fetching the stock it stops at once, having sent nothing; while sending, it lets the
batch (or the PATCHes) in flight finish and starts no more. Rows not sent are "not
attempted", counted apart from the failed ones. A second interrupt stops at once.

Report: a summary, the changes and every failure on stdout (--json: {"changed", "unchanged",
"failed", "notAttempted", "results"}); a progress bar on stderr when it is a terminal.

Examples:
  petstore inventory apply counts.csv --dry-run
  petstore inventory apply counts.csv
  petstore inventory apply counts.csv --atomic
  petstore inventory apply counts.csv --reason "stocktake 2026-11"
  petstore inventory apply sheet.csv --as-of 1234
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
