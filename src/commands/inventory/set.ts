/** `petstore inventory set <petId> <quantity>`: sets the stock of one pet. */
import { Command } from "commander";
import { chooseRecordFormat } from "../../output/format.js";
import { writeInventoryItem } from "../../output/inventory.js";
import { petIdArgument, quantityArgument } from "../../program/arguments.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

export interface SetArguments {
  petId: string;
  quantity: string;
}

export interface SetOptions {
  json?: boolean | undefined;
}

/** Validates both arguments locally (nothing is sent if either is bad), PATCHes, prints the entry. */
export async function runSet(
  args: SetArguments,
  options: SetOptions,
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
export function setCommand(factory: Factory): Command {
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
    .action(async (petId: string, quantity: string, options: SetOptions, command: Command) => {
      await runSet({ petId, quantity }, options, factory.context(readGlobalOptions(command)));
    });
}
