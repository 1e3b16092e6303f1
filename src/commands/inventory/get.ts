/** `petstore inventory get <petId>`: the stock of one pet. */
import { Command, Option } from "commander";
import { chooseFormat } from "../../output/format.js";
import { writeInventoryItem } from "../../output/inventory.js";
import { petIdArgument } from "../../program/arguments.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

export interface InventoryGetOptions {
  json?: boolean | undefined;
  csv?: boolean | undefined;
}

/** Validates the petId locally, GETs the entry, prints it. */
export async function runInventoryGet(
  petIdText: string,
  options: InventoryGetOptions,
  context: CommandContext,
): Promise<void> {
  const petId = petIdArgument(petIdText);
  const format = chooseFormat(options, context.io);
  const client = await context.apiClient();
  const { item } = await client.getInventoryItem(petId);
  writeInventoryItem(item, format, context.io);
}

/** Defines `inventory get`. */
export function inventoryGetCommand(factory: Factory): Command {
  return new Command("get")
    .description("show the stock of one pet (GET /inventory/{petId})")
    .argument("<petId>", "the pet, a whole number from 1 to 9223372036854775807")
    .addOption(new Option("--json", "print the entry as a JSON object").conflicts("csv"))
    .option("--csv", "print CSV with the header petId,quantity,status")
    .addHelpText(
      "after",
      `
On a terminal: a one-row table. Piped: one tab-separated line (petId, quantity, status).
The quantity it shows is what a conditional write needs: set --if-quantity N.

Examples:
  petstore inventory get 42
  petstore inventory get 42 --json | jq .quantity
  petstore inventory get 42 --csv`,
    )
    .action(async (petId: string, options: InventoryGetOptions, command: Command) => {
      await runInventoryGet(petId, options, factory.context(readGlobalOptions(command)));
    });
}
