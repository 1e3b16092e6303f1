/** `petstore inventory set <petId> <quantity>`: sets the stock of one pet. */
import { Command, Option } from "commander";
import { MAX_QUANTITY, MIN_QUANTITY } from "../../api/limits.js";
import { isPreconditionFailed, quantityETag } from "../../client/etag.js";
import { chooseRecordFormat } from "../../output/format.js";
import { writeInventoryItem } from "../../output/inventory.js";
import {
  petIdArgument,
  quantityArgument,
  REASON_OPTION_HELP,
  reasonOption,
  wholeNumberOption,
} from "../../program/arguments.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";
import { quantityAfterConflict, QuantityConflictError } from "./conflict.js";

export interface InventorySetArguments {
  petId: string;
  quantity: string;
}

export interface InventorySetOptions {
  json?: boolean | undefined;
  /** Write only if the entry still holds this quantity (`If-Match: "N"`). */
  ifQuantity?: number | undefined;
  /** Why, kept in the entry's history (`X-Change-Reason`). */
  reason?: string | undefined;
}

/**
 * Validates both arguments locally (nothing is sent if either is bad), PATCHes, prints the
 * entry. With --if-quantity a 412 is a QuantityConflictError (exit 8) naming what the entry
 * holds now.
 */
export async function runInventorySet(
  args: InventorySetArguments,
  options: InventorySetOptions,
  context: CommandContext,
): Promise<void> {
  const petId = petIdArgument(args.petId);
  const quantity = quantityArgument(args.quantity, petId);
  const format = chooseRecordFormat(options, context.io);
  const client = await context.apiClient();
  const expected = options.ifQuantity;
  try {
    const { item } = await client.updateInventory(petId, quantity, {
      ...(expected === undefined ? {} : { ifMatch: quantityETag(expected) }),
      reason: options.reason,
    });
    writeInventoryItem(item, format, context.io);
  } catch (error) {
    if (expected === undefined || !isPreconditionFailed(error)) throw error;
    const current = await quantityAfterConflict(error, petId, client);
    const now = current === undefined ? "it changed" : `it holds ${current} now`;
    throw new QuantityConflictError(
      `pet ${petId} no longer holds ${expected}: ${now}; nothing was changed`,
      `read it again (petstore inventory get ${petId}) and decide, or use petstore inventory adjust ${petId} +N|-N to change it relative to whatever it holds`,
      current,
    );
  }
}

/** Defines `inventory set`. */
export function inventorySetCommand(factory: Factory): Command {
  return new Command("set")
    .description("set the stock quantity of one pet (PATCH /inventory/{petId})")
    .argument("<petId>", "the pet, a whole number from 1 to 9223372036854775807")
    .argument(
      "<quantity>",
      `the new stock count, a whole number from ${MIN_QUANTITY} to ${MAX_QUANTITY}`,
    )
    .addOption(
      new Option(
        "--if-quantity <n>",
        "change it only if it still holds n (If-Match); exit 8 if it does not",
      ).argParser(wholeNumberOption("a quantity", MIN_QUANTITY, MAX_QUANTITY)),
    )
    .addOption(new Option("--reason <text>", REASON_OPTION_HELP).argParser(reasonOption))
    .option("--json", "print the updated entry as a JSON object")
    .addHelpText(
      "after",
      `
Prints the updated entry. Safe to repeat: the quantity is set, not added, and a retry after a
lost response is recognised by its Idempotency-Key. With --if-quantity N nothing is changed
when someone else changed the entry since you read N: exit 8, and the message says what it
holds now. To add to the count or take from it (+5, -1), use petstore inventory adjust.

Examples:
  petstore inventory set 42 7
  petstore inventory set 42 6 --if-quantity 7
  petstore inventory set 42 0 --reason "sold out at the fair"
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
