/** Picks the generator for a shell and runs it on the program's command tree. */
import type { Command } from "commander";
import { bashScript } from "./bash.js";
import { describeProgram } from "./command-tree.js";
import { fishScript } from "./fish.js";
import type { Shell } from "./shells.js";
import type { ScriptHeader } from "./script-text.js";
import { zshScript } from "./zsh.js";

const GENERATORS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

/** The completion script of `program` for `shell`, generated from its commands and options. */
export function completionScript(shell: Shell, program: Command): string {
  const header: ScriptHeader = { program: program.name(), version: program.version() ?? "" };
  return GENERATORS[shell](describeProgram(program), header);
}
