/** `petstore keys`: groups the verbs that manage API keys. */
import { Command } from "commander";
import { keysCheckCommand } from "./check.js";
import { keysCreateCommand } from "./create.js";

/** Where the keys verbs write. */
export interface KeysIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Defines `keys` and its verbs. */
export function keysCommand(io: KeysIo): Command {
  return new Command("keys")
    .description("make API keys for the bundled server, and check its keys file")
    .addCommand(keysCreateCommand(io))
    .addCommand(keysCheckCommand(io))
    .addHelpText(
      "after",
      `
Examples:
  petstore keys create cron-report --scope read > cron-report.key
  petstore keys create till-3 > till-3.key
  petstore keys check /etc/petstore/keys`,
    );
}
