/** `petstore inventory changes`: the store's change feed, oldest first, every change once. */
import { Command, Option } from "commander";
import { seqOption, wholeNumberOption } from "../../program/arguments.js";
import type { Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";
// Only the type: the feed walker, the cursor file and the printers load when changes runs.
import type { InventoryChangesOptions } from "./changes-run.js";

/** Defines `inventory changes`. */
export function inventoryChangesCommand(factory: Factory): Command {
  return new Command("changes")
    .description(
      "print every change of every pet's stock, oldest first, in the order they were made (GET /inventory/changes)",
    )
    .addOption(
      new Option("--after <seq>", "print the changes after this seq (default: from the first)")
        .argParser(seqOption)
        .conflicts("cursorFile"),
    )
    .addOption(
      new Option("--limit <n>", "print at most n changes (default: all there are)").argParser(
        wholeNumberOption("a number of changes", 1, Number.MAX_SAFE_INTEGER),
      ),
    )
    .option(
      "--cursor-file <file>",
      "start after the seq the file holds (from the first change when it does not exist), and save the last seq printed in it",
    )
    .option("--follow", "keep printing new changes as they are made, until interrupted")
    .option("--json", "print each change as one JSON object per line (JSON Lines)")
    .option("--csv", "print CSV with a header line")
    .addHelpText(
      "after",
      `
Every change of a quantity has a seq: a number unique in the store, increasing in the order
the changes were made. The changes come in seq order, each once.

Output: on a terminal, a table with local times and each change's sign (with --follow, one
aligned line per change under a header line); under 125 columns with --follow, or too narrow
for the table, each change on lines of its own, its ref and reason below. Piped: one
tab-separated line per change: seq,
at (ISO 8601, UTC), petId, previous, quantity, keyName, requestId, reason, ref (empty fields
for none). --json: one object per line with those fields; --csv: the same columns, with a
header.

--cursor-file F reads where the last run stopped from F, prints the changes after it, and
only once they are written out replaces F (atomically) with the seq of the last one printed,
and F.last-change beside it with that change (SEQ pet N at TIME), after every page of up to
1000 changes. A run that is killed or fails prints the changes it
had not saved again next time, and never skips one: a consumer that keeps changes by seq
loses none and counts none twice. Append the output (>>) rather than overwrite it; JSON
Lines and tab-separated lines append cleanly (--csv starts every run with its header). A
cursor (or --after) past the store's latest change is refused, exit 2: the store did not hand
it out (another store's file, or one saved before the store was restored); so is a cursor file
whose change the store holds no more at its seq (a restored store that has taken new changes,
reusing the lost ones' seqs), checked again when a follower reconnects. A seq written into F
by hand is read as it is (F.last-change then names another seq, and is not checked).

--follow prints the changes there are, then waits for new ones (a long poll of 30 s at a
time) and prints each as it comes. If the server goes away (a restart) it says so once on
stderr and asks again, from the last seq printed, until it answers. Interrupted (Ctrl-C,
SIGTERM), it finishes the page it is printing, saves its cursor and exits 130 or 143. With
--limit it exits after n changes.

Examples:
  petstore inventory changes --limit 20
  petstore inventory changes --after 41230 --csv > changes.csv
  petstore inventory changes --follow --json | jq -c 'select(.quantity < 3)'
  petstore inventory changes --cursor-file changes.cursor --json >> changes.jsonl
  15 2 * * * petstore inventory changes --cursor-file /var/lib/petstore/changes.cursor --json >> /srv/exports/changes.jsonl`,
    )
    .action(async (options: InventoryChangesOptions, command: Command) => {
      const globals = readGlobalOptions(command);
      // The feed walker, cursor file and printers load only when changes runs.
      const { runInventoryChanges } = await import("./changes-run.js");
      await runInventoryChanges(options, factory.context(globals));
    });
}
