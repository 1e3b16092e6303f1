/** `petstore pets`: groups the pet verbs. */
import { Command } from "commander";
import type { Factory } from "../../program/factory.js";
import { guardVerbSuggestions } from "../../program/verb-suggestions.js";
import { petsGetCommand } from "./get.js";

/** Defines `pets` and its verbs. */
export function petsCommand(factory: Factory): Command {
  const group = new Command("pets")
    .description("look up pet records")
    .addCommand(petsGetCommand(factory))
    .addHelpText(
      "after",
      `
Examples:
  petstore pets get 42
  petstore pets get 42 --json`,
    );
  return guardVerbSuggestions(group, ["get"]);
}
