/** `petstore pets`: groups the pet verbs. */
import { Command } from "commander";
import type { Factory } from "../../program/factory.js";
import { petsGetCommand } from "./get.js";

/** Defines `pets` and its verbs. */
export function petsCommand(factory: Factory): Command {
  return new Command("pets").description("look up pet records").addCommand(petsGetCommand(factory));
}
