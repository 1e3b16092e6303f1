/**
 * `run(argv, deps)`: builds the commander program on injected dependencies, runs it, and
 * maps whatever it throws to an exit code and its message (program/exit.ts).
 */
import { Command } from "commander";
import { EXIT_CODES, exitCodesHelp, type ExitCode } from "../exit-codes.js";
import { formatExit } from "../output/messages.js";
import type { Deps } from "./deps.js";
import { exitFor } from "./exit.js";
import { Factory } from "./factory.js";
import { addGlobalOptions } from "./global-options.js";
import { guardRootSuggestions } from "./verb-suggestions.js";
import { completionCommand } from "../commands/completion.js";
import { dbCommand } from "../commands/db/index.js";
import { inventoryCommand } from "../commands/inventory/index.js";
import { keysCommand } from "../commands/keys/index.js";
import { ordersCommand } from "../commands/orders/index.js";
import { petsCommand } from "../commands/pets/index.js";
import { serveCommand } from "../commands/serve.js";
import { VERSION } from "./version.js";

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
export function createProgram(factory: Factory): Command {
  const { deps } = factory;
  const program = addGlobalOptions(new Command("petstore"))
    .description("Read and set pet-store stock levels over HTTP")
    .version(VERSION, "--version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .addHelpText("after", ROOT_HELP)
    .addCommand(inventoryCommand(factory))
    .addCommand(petsCommand(factory))
    .addCommand(ordersCommand(factory))
    .addCommand(serveCommand({ env: deps.env, stdout: deps.stdout, stderr: deps.stderr }))
    .addCommand(keysCommand({ stdout: deps.stdout, stderr: deps.stderr }))
    .addCommand(
      dbCommand({
        env: deps.env,
        stdout: deps.stdout,
        stderr: deps.stderr,
        // As IoStreams decides it for apply; the db verbs write no --verbose trace under it.
        progress: deps.stderrIsTTY === true ? deps.stderr : undefined,
      }),
    )
    .addCommand(completionCommand({ stdout: deps.stdout }));
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

/** Runs the CLI on `argv` (without node and script) and returns the exit code. */
export async function run(argv: readonly string[], deps: Deps): Promise<ExitCode> {
  const factory = new Factory(deps);
  // `petstore list` is answered with `petstore inventory list`, not commander's guess.
  const program = guardRootSuggestions(createProgram(factory), argv);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return EXIT_CODES.ok;
  } catch (error) {
    const exit = exitFor(error, { verbose: program.opts().verbose === true });
    const text = formatExit(exit);
    if (text !== "") deps.stderr.write(text);
    return exit.code;
  } finally {
    await factory.close();
  }
}
