/**
 * The root command, `petstore`: its global options, its help, and every command under it,
 * each built on the one Factory (as gh's NewCmdRoot). Defining the commands runs none of them.
 */
import { Command } from "commander";
import { exitCodesHelp } from "../exit-codes.js";
import type { Factory } from "../program/factory.js";
import { addGlobalOptions } from "../program/global-options.js";
import { completionCommand } from "./completion.js";
import { dbCommand } from "./db/index.js";
import { inventoryCommand } from "./inventory/index.js";
import { keysCommand } from "./keys/index.js";
import { ordersCommand } from "./orders/index.js";
import { petsCommand } from "./pets/index.js";
import { serveCommand } from "./serve.js";
import { VERSION } from "../program/version.js";

const ROOT_HELP = `
Selecting the server (base URLs include /v1):
  production  --base-url URL, else PETSTORE_BASE_URL
  staging     --env staging or --staging: PETSTORE_STAGING_URL
  local       --env local: http://127.0.0.1:4010/v1 (where petstore serve listens)
  PETSTORE_ENV sets the default environment.

The API key (never a flag):
  PETSTORE_API_KEY; for staging PETSTORE_STAGING_API_KEY wins when set;
  PETSTORE_API_KEY_FILE names a file holding the key, used when the variables are unset.
  HTTPS_PROXY, HTTP_PROXY and NO_PROXY are honoured.

Exit codes:
${exitCodesHelp()}

Examples:
  petstore inventory list
  petstore inventory get 42
  petstore inventory set 42 7
  petstore inventory adjust 42 -1
  petstore --env staging inventory list --json
  PETSTORE_API_KEY=s3cret petstore --env local inventory list --csv`;

function forEachCommand(command: Command, visit: (command: Command) => void): void {
  visit(command);
  for (const sub of command.commands) forEachCommand(sub, visit);
}

function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent) {
    names.unshift(current.name());
  }
  return names.join(" ");
}

/** Builds the `petstore` program; every command writes to the injected streams. */
export function rootCommand(factory: Factory): Command {
  const { deps } = factory;
  const program = addGlobalOptions(new Command("petstore"))
    .description("Read and set pet-store stock levels over HTTP")
    .version(VERSION, "--version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .addHelpText("after", ROOT_HELP)
    .addCommand(inventoryCommand(factory))
    .addCommand(petsCommand(factory))
    .addCommand(ordersCommand(factory))
    .addCommand(serveCommand(factory))
    .addCommand(keysCommand(factory))
    .addCommand(dbCommand(factory))
    .addCommand(completionCommand(factory));
  // addCommand() does not pass settings down, so apply them to every command.
  forEachCommand(program, (command) => {
    command
      .exitOverride()
      .showSuggestionAfterError()
      .showHelpAfterError(`hint: see ${commandPath(command)} --help`)
      .configureOutput({
        writeOut: (text) => deps.stdout.write(text),
        writeErr: (text) => deps.stderr.write(text),
      });
  });
  return program;
}
