/** `petstore completion <shell>`: prints a completion script generated from the program. */
import { Argument, Command } from "commander";
import { SHELLS, type Shell } from "../completion/shells.js";
import type { IoStreams } from "../output/io-streams.js";
import type { Factory } from "../program/factory.js";
import { readGlobalOptions } from "../program/global-options.js";

/** Writes the completion script of `program` for `shell`. */
export async function runCompletion(shell: Shell, program: Command, io: IoStreams): Promise<void> {
  // The generators load only for this command, not on every start-up.
  const { completionScript } = await import("../completion/script.js");
  io.out.write(completionScript(shell, program));
}

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent !== null) root = root.parent;
  return root;
}

/** Defines `completion`. */
export function completionCommand(factory: Factory): Command {
  return new Command("completion")
    .description("print a shell completion script for bash, zsh or fish")
    .addArgument(new Argument("<shell>", "the shell to complete in").choices(SHELLS))
    .addHelpText(
      "after",
      `
The script completes commands, options, option values (--env, --status, --format) and file
names, from the commands of this version: generate it again after an upgrade.

Examples:
  petstore completion bash > ~/.local/share/bash-completion/completions/petstore
  petstore completion zsh > ~/.zsh/completions/_petstore
  petstore completion fish > ~/.config/fish/completions/petstore.fish
  source <(petstore completion bash)`,
    )
    .action(async (shell: Shell, _options: unknown, command: Command) => {
      await runCompletion(shell, rootOf(command), factory.io(readGlobalOptions(command)));
    });
}
