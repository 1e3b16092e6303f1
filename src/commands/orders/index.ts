/** `petstore orders`: groups the order verbs. */
import { Command } from "commander";
import type { Factory } from "../../program/factory.js";
import { guardVerbSuggestions } from "../../program/verb-suggestions.js";
import { ordersListCommand } from "./list.js";

/** Defines `orders` and its verbs. */
export function ordersCommand(factory: Factory): Command {
  const group = new Command("orders")
    .description("look at store orders")
    .addCommand(ordersListCommand(factory))
    .addHelpText(
      "after",
      `
Examples:
  petstore orders list
  petstore orders list --json`,
    );
  return guardVerbSuggestions(group, ["list"]);
}
