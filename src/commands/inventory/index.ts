/** `petstore inventory`: groups the inventory verbs. */
import { Command } from "commander";
import type { Factory } from "../../program/factory.js";
import { inventoryApplyCommand } from "./apply.js";
import { listCommand } from "./list.js";
import { setCommand } from "./set.js";

/** Defines `inventory` and its verbs. */
export function inventoryCommand(factory: Factory): Command {
  return new Command("inventory")
    .description("read and set stock levels")
    .addCommand(listCommand(factory))
    .addCommand(setCommand(factory))
    .addCommand(inventoryApplyCommand(factory));
}
