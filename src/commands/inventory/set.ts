/** `petstore inventory set <petId> <quantity>`: sets the stock of one pet. */
import { Command } from "commander";
import { chooseRecordFormat } from "../../output/format.js";
import { writeInventoryItem } from "../../output/inventory.js";
import { petIdArgument, quantityArgument } from "../../program/arguments.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

export interface InventorySetArguments {
  petId: string;
  quantity: string;
}

export interface InventorySetOptions {
  json?: boolean | undefined;
}

/** Validates both arguments locally (nothing is sent if either is bad), PATCHes, prints the entry. */
export async function runInventorySet(
  args: InventorySetArguments,
  options: InventorySetOptions,
  context: CommandContext,
): Promise<void> {
  const petId = petIdArgument(args.petId);
  const quantity = quantityArgument(args.quantity);
  const format = chooseRecordFormat(options, context.io);
  const client = await context.apiClient();
  const item = await client.updateInventory(petId, quantity);
  writeInventoryItem(item, format, context.io);
}

/** Defines `inventory set`. */
export function inventorySetCommand(factory: Factory): Command {
  return new Command("set")
    .description("set the stock quantity of one pet (PATCH /inventory/{petId})")
    .argument("<petId>", "the pet, a whole number from 1 to 9223372036854775807")
    .argument("<quantity>", "the new stock count, a whole number from 0 to 2147483647")
    .option("--json", "print the updated entry as a JSON object")
    .addHelpText(
      "after",
      `
Prints the updated entry. Safe to repeat: the quantity is set, not added.

Examples:
  petstore inventory set 42 7
  petstore inventory set 42 0 --json
  petstore --env staging inventory set 9223372036854775807 3`,
    )
    .action(
      async (petId: string, quantity: string, options: InventorySetOptions, command: Command) => {
        await runInventorySet(
          { petId, quantity },
          options,
          factory.context(readGlobalOptions(command)),
        );
      },
    );
}
