/**
 * `run(argv, deps)`: builds the root command on injected dependencies, runs it, and maps
 * whatever it throws to an exit code and its message (program/exit.ts), as gh's main does.
 */
import { EXIT_CODES, type ExitCode } from "./exit-codes.js";
import { rootCommand } from "./commands/root.js";
import { formatExit } from "./output/messages.js";
import type { Deps } from "./program/deps.js";
import { exitFor } from "./program/exit.js";
import { Factory } from "./program/factory.js";
import { guardRootSuggestions } from "./program/verb-suggestions.js";

/** Runs the CLI on `argv` (without node and script) and returns the exit code. */
export async function run(argv: readonly string[], deps: Deps): Promise<ExitCode> {
  const factory = new Factory(deps);
  // `petstore list` is answered with `petstore inventory list`, not commander's guess.
  const program = guardRootSuggestions(rootCommand(factory), argv);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return EXIT_CODES.ok;
  } catch (error) {
    const exit = exitFor(error, { verbose: program.opts().verbose === true, env: deps.env });
    const text = formatExit(exit);
    if (text !== "") deps.stderr.write(text);
    return exit.code;
  } finally {
    await factory.close();
  }
}
