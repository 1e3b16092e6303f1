/**
 * The program's commands by their path below the root, found as the completion scripts find
 * them (src/completion/command-tree.ts: visible commands only, commander's implicit `help`
 * left out), with the commander objects that --help prints from.
 */
import type { Command } from "commander";
import { allCommands, describeProgram } from "../completion/command-tree.js";

/** The commander command at `path` below `program` (names as the tree gives them). */
export function commandAt(program: Command, path: readonly string[]): Command {
  let command = program;
  for (const name of path) {
    const sub = command.commands.find((candidate) => candidate.name() === name);
    if (sub === undefined) throw new Error(`no command ${[program.name(), ...path].join(" ")}`);
    command = sub;
  }
  return command;
}

/** Every command and verb below the root, parents first, as completion sees them. */
export function documentedCommands(program: Command): { path: string[]; command: Command }[] {
  return allCommands(describeProgram(program))
    .filter((node) => node.path.length > 0)
    .map((node) => ({ path: [...node.path], command: commandAt(program, node.path) }));
}
