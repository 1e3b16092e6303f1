/** `petstore inventory`: groups the inventory verbs. */
import { Command } from "commander";
import type { Factory } from "../../program/factory.js";
import { guardVerbSuggestions } from "../../program/verb-suggestions.js";
import { inventoryAdjustCommand } from "./adjust.js";
import { inventoryApplyCommand } from "./apply.js";
import { inventoryChangesCommand } from "./changes.js";
import { inventoryCountCommand } from "./count.js";
import { inventoryGetCommand } from "./get.js";
import { inventoryHistoryCommand } from "./history.js";
import { inventoryListCommand } from "./list.js";
import { inventoryLowCommand } from "./low.js";
import { inventorySetCommand } from "./set.js";

/** Defines `inventory` and its verbs. */
export function inventoryCommand(factory: Factory): Command {
  const group = new Command("inventory")
    .description("read and set stock levels")
    .addCommand(inventoryListCommand(factory))
    .addCommand(inventoryGetCommand(factory))
    .addCommand(inventorySetCommand(factory))
    .addCommand(inventoryAdjustCommand(factory))
    .addCommand(inventoryApplyCommand(factory))
    .addCommand(inventoryHistoryCommand(factory))
    .addCommand(inventoryChangesCommand(factory))
    .addCommand(inventoryLowCommand(factory))
    .addCommand(inventoryCountCommand(factory))
    .addHelpText(
      "after",
      `
Examples:
  petstore inventory list --status available
  petstore --env staging inventory list --json
  petstore inventory get 42 --json
  petstore inventory set 42 7
  petstore inventory set 42 6 --if-quantity 7
  petstore inventory adjust 42 -1
  petstore inventory adjust --file sales-2026-11-24.csv
  petstore inventory apply counts.csv --dry-run
  petstore inventory history 42
  petstore inventory changes --follow
  petstore inventory low --below 3
  petstore inventory count`,
    );
  return guardVerbSuggestions(group, ["list", "get", "history", "changes"]);
}
