/** `petstore inventory`: groups the inventory verbs. */
import { Command } from "commander";
import type { Factory } from "../../program/factory.js";
import { applyCommand } from "./apply.js";
import { inventoryListCommand } from "./list.js";
import { inventorySetCommand } from "./set.js";

/** Defines `inventory` and its verbs. */
export function inventoryCommand(factory: Factory): Command {
  return new Command("inventory")
    .description("read and set stock levels")
    .addCommand(inventoryListCommand(factory))
    .addCommand(inventorySetCommand(factory))
    .addCommand(applyCommand(factory));
}
