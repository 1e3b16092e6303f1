/** `petstore inventory low`: the pets whose stock is below a threshold; exit 9 when any is. */
import { Command, Option } from "commander";
import { MAX_QUANTITY } from "../../api/limits.js";
import { PET_STATUSES } from "../../api/types.js";
import { wholeNumberOption } from "../../program/arguments.js";
import type { Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";
// Only the type: the run function (and, for --thresholds, the CSV reader) loads when low runs.
import type { InventoryLowOptions } from "./low-run.js";

/** Defines `inventory low`. */
export function inventoryLowCommand(factory: Factory): Command {
  return new Command("low")
    .description("list the pets whose stock is below a threshold; exit 9 when any is")
    .addOption(
      new Option("--below <n>", "a pet is low when its quantity is below n").argParser(
        wholeNumberOption("a whole number", 1, MAX_QUANTITY),
      ),
    )
    .option(
      "--thresholds <file>",
      "CSV with a petId,minimum header: each pet's own minimum, over --below; - reads stdin",
    )
    .addOption(
      new Option("--status <status>", "check only pets with this status").choices(PET_STATUSES),
    )
    .addOption(new Option("--json", "print a JSON array of the low entries").conflicts("csv"))
    .option("--csv", "print CSV with the header petId,quantity,status,minimum")
    .addHelpText(
      "after",
      `
A pet is low when its quantity is below its minimum: the minimum of its row in the
--thresholds file, else the --below number. A pet with neither is not checked, and a
minimum of 0 in the file exempts that pet from --below. Give --below, --thresholds or both.

The file is checked whole first: CSV with a header naming petId and minimum (in any order,
other columns ignored). A bad number, a missing column or a duplicate petId is exit 2
naming the line, and nothing is fetched. A pet of the file that the inventory does not
list is named in a warning on stderr, and not checked.

One request, GET /inventory: it works against any server that implements the spec.

Exit status: 9 when any pet is low (the list is on stdout, nothing is said on stderr), 0
when none is, and the usual codes otherwise (2 usage, 3 server unreachable, 4 the key...).

On a terminal: a table with each low pet's minimum and how many it is short, and a summary
line (or "nothing is low"). Piped: one tab-separated line per low pet (petId, quantity,
status, minimum), no header; nothing when none is low. --json: an array of {petId,
quantity, status, minimum}. --csv: the header petId,quantity,status,minimum, then the pets.

Examples:
  petstore inventory low --below 3
  petstore inventory low --thresholds minimums.csv
  petstore inventory low --thresholds minimums.csv --below 5 --status available
  petstore inventory low --below 3 --json | jq -r '.[].petId'
  0 7 * * * low=$(petstore inventory low --below 3 --csv); [ $? = 9 ] && echo "$low" | mail -s 'low stock' shop@example.com`,
    )
    .action(async (options: InventoryLowOptions, command: Command) => {
      const globals = readGlobalOptions(command);
      const { runInventoryLow } = await import("./low-run.js");
      await runInventoryLow(options, factory.context(globals));
    });
}
