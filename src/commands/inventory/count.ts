/** `petstore inventory count`: count shelves, each pet true as of the moment it was counted. */
import { Command, Option } from "commander";
import { MAX_BATCH_CHANGES } from "../../api/limits.js";
import { PET_STATUSES } from "../../api/types.js";
import { REASON_OPTION_HELP, reasonOption } from "../../program/arguments.js";
import type { Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";
// Only the type: the session (journal, readline) loads when count runs.
import type { InventoryCountOptions } from "./count-run.js";

/** Defines `inventory count`. */
export function inventoryCountCommand(factory: Factory): Command {
  return new Command("count")
    .description(
      "count shelves (a barcode scanner or typed lines): each count true as of when its pet was first scanned",
    )
    .addOption(
      new Option(
        "--resume [session]",
        "continue this server's unfinished session (or the session named)",
      ),
    )
    .option("--sessions", "list the count sessions kept on this machine")
    .option("--full", "a full stocktake: every pet of the scope not counted is counted 0")
    .addOption(
      new Option(
        "--status <status>",
        "the scope of --full or --sheet: pets with this status",
      ).choices(PET_STATUSES),
    )
    .option("--dry-run", "ask the server what the counts would do; change nothing")
    .option("--yes", "post without asking (needed when the lines do not come from a terminal)")
    .option("--json", "print the result as JSON (as inventory apply --json does)")
    .addOption(
      new Option(
        "--reason <text>",
        `${REASON_OPTION_HELP}; default "stocktake <session>"`,
      ).argParser(reasonOption),
    )
    .option("--sheet", "print a count sheet to fill in on paper (post it with apply --as-of)")
    .option("--csv", "with --sheet: the sheet as CSV")
    .addHelpText(
      "after",
      `
Each line: ID counts one more of pet ID (what a scanner types), ID xN counts N more, ID =N sets
pet ID's count to N, undo takes back the last line, ? prints the totals so far, and done (or
Ctrl-D) ends the counting. A pet's first line reads it: its book (the quantity then) and the
change-feed seq it holds at, which its count is true as of. A line that is not one of these,
or an unknown pet, rings the bell and counts nothing; the session goes on.

Every accepted line is written to the session's journal, and flushed to disk, before it is
shown: $XDG_STATE_HOME/petstore/counts/<session>.jsonl (~/.local/state/petstore/counts when
unset). Ctrl-C, a closed terminal or a crash loses nothing shown: --resume continues.

The review lists each pet's book, count and variance, then asks to post. Posting sends one
atomic batch of counts (at most ${MAX_BATCH_CHANGES} pets), each with the ref count:<session>:<petId>:
the server sets each pet to its count plus every movement of that pet since its seq, so a sale
made while the shelf was being counted is kept, never counted twice; posting a session again
changes nothing. One failing count (below 0: a sale the shelf did not have) rejects the batch
(exit 7) and the session stays open to fix (ID =N) and post.

Not at a terminal, the lines come from stdin without a prompt, and posting needs --yes (or
--dry-run). Exit codes as inventory apply: 0 posted, 7 a count failed, 2 usage, 130 interrupted.

--sheet prints a count sheet (--csv for a spreadsheet): petId, status, book and an empty
counted column, headed by its seq; filled in, petstore inventory apply FILE --as-of SEQ posts it.

Examples:
  petstore inventory count
  petstore inventory count --full --status available
  petstore inventory count --resume
  petstore inventory count --yes < scans.txt
  petstore inventory count --sheet --csv > sheet.csv`,
    )
    .action(async (options: InventoryCountOptions, command: Command) => {
      const globals = readGlobalOptions(command);
      const { runInventoryCount } = await import("./count-run.js");
      await runInventoryCount(options, factory.context(globals));
    });
}
