/** `petstore inventory history <petId>`: who changed one pet's stock, when and why. */
import { Command, Option } from "commander";
import { DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT } from "../../api/limits.js";
import { chooseRecordFormat } from "../../output/format.js";
import { writeInventoryHistory } from "../../output/history.js";
import { petIdArgument, wholeNumberOption } from "../../program/arguments.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

export interface InventoryHistoryOptions {
  json?: boolean | undefined;
  limit: number;
}

/** Validates the petId locally, GETs the entry's history, prints it. */
export async function runInventoryHistory(
  petIdText: string,
  options: InventoryHistoryOptions,
  context: CommandContext,
): Promise<void> {
  const petId = petIdArgument(petIdText);
  const format = chooseRecordFormat(options, context.io);
  const client = await context.apiClient();
  const records = await client.getInventoryHistory(petId, options.limit);
  writeInventoryHistory(petId, records, format, context.io);
}

/** Defines `inventory history`. */
export function inventoryHistoryCommand(factory: Factory): Command {
  return new Command("history")
    .description(
      "show who changed the stock of one pet, when and why (GET /inventory/{petId}/history)",
    )
    .argument("<petId>", "the pet, a whole number from 1 to 9223372036854775807")
    .addOption(
      new Option("--limit <n>", "how many changes, newest first")
        .argParser(wholeNumberOption("a number of changes", 1, MAX_HISTORY_LIMIT))
        .default(DEFAULT_HISTORY_LIMIT),
    )
    .option("--json", "print the changes as a JSON array")
    .addHelpText(
      "after",
      `
Newest first. On a terminal: a table with local times, the change (+N/-N), the name of the
key that made it and the reason given (set/adjust/apply --reason); on a terminal too narrow
for the table, each change on lines of its own, its ref and reason below. Piped: one tab-separated
line per change: at (ISO 8601, UTC), petId, previous, quantity, keyName, requestId, reason
(empty fields for none). The request id is the one in the server's log.

Examples:
  petstore inventory history 42
  petstore inventory history 42 --limit 100
  petstore inventory history 42 --json | jq '.[] | select(.keyName == "cron")'`,
    )
    .action(async (petId: string, options: InventoryHistoryOptions, command: Command) => {
      await runInventoryHistory(petId, options, factory.context(readGlobalOptions(command)));
    });
}
