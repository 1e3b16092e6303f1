/** `petstore keys`: groups the verbs that manage API keys. */
import { Command } from "commander";
import { keysCheckCommand } from "./check.js";
import { keysCreateCommand } from "./create.js";
import type { Factory } from "../../program/factory.js";

/** Defines `keys` and its verbs. */
export function keysCommand(factory: Factory): Command {
  return new Command("keys")
    .description("make API keys for the bundled server, and check its keys file")
    .addCommand(keysCreateCommand(factory))
    .addCommand(keysCheckCommand(factory))
    .addHelpText(
      "after",
      `
Examples:
  petstore keys create cron-report --scope read > cron-report.key
  petstore keys create till-3 > till-3.key
  petstore keys check /etc/petstore/keys`,
    );
}
