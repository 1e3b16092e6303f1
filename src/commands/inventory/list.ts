/** `petstore inventory list`: the stock of every pet. */
import { Command, Option } from "commander";
import { PET_STATUSES, type InventoryItem, type PetStatus } from "../../api/types.js";
import { chooseFormat } from "../../output/format.js";
import { writeInventoryList } from "../../output/inventory.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

export interface InventoryListOptions {
  status?: PetStatus | undefined;
  json?: boolean | undefined;
  csv?: boolean | undefined;
}

function byPetId(a: InventoryItem, b: InventoryItem): number {
  return a.petId < b.petId ? -1 : a.petId > b.petId ? 1 : 0;
}

/** Fetches the inventory, filters it by status, and prints it sorted by petId. */
export async function runInventoryList(
  options: InventoryListOptions,
  context: CommandContext,
): Promise<void> {
  const format = chooseFormat(options, context.io);
  const client = await context.apiClient();
  const items = await client.listInventory();
  const shown = items
    .filter((item) => options.status === undefined || item.status === options.status)
    .sort(byPetId);
  writeInventoryList(shown, format, context.io);
}

/** Defines `inventory list`. */
export function inventoryListCommand(factory: Factory): Command {
  return new Command("list")
    .description("list the stock of every pet (GET /inventory)")
    .addOption(
      new Option("--status <status>", "show only pets with this status").choices(PET_STATUSES),
    )
    .addOption(new Option("--json", "print a JSON array of entries").conflicts("csv"))
    .option("--csv", "print CSV with the header petId,quantity,status")
    .addHelpText(
      "after",
      `
On a terminal: a table with coloured statuses and a totals line.
Piped: one tab-separated line per pet (petId, quantity, status), no header, no colour.

Examples:
  petstore inventory list
  petstore inventory list --status available
  petstore inventory list --json | jq '.[] | select(.quantity == 0) | .petId'
  petstore inventory list --csv > stock.csv
  petstore --env staging inventory list`,
    )
    .action(async (options: InventoryListOptions, command: Command) => {
      await runInventoryList(options, factory.context(readGlobalOptions(command)));
    });
}
