/** `petstore orders`: groups the order verbs. */
import { Command } from "commander";
import type { Factory } from "../../program/factory.js";
import { ordersListCommand } from "./list.js";

/** Defines `orders` and its verbs. */
export function ordersCommand(factory: Factory): Command {
  return new Command("orders")
    .description("look at store orders")
    .addCommand(ordersListCommand(factory));
}
