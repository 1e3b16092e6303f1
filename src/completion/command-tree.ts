/**
 * The commander program read as plain data for completion scripts: every command path with
 * its subcommands, options and positional arguments, and what each value completes to.
 */
import type { Argument, Command, Option } from "commander";

/** What a value (of an option or a positional argument) completes to. */
export type ValueCompletion =
  | { kind: "choices"; choices: readonly string[] }
  | { kind: "files" }
  /** Free text (a URL, a number, a petId): nothing to offer. */
  | { kind: "none" };

/** An option as a shell sees it. */
export interface CompletionOption {
  /** Every spelling, short first: `["-h", "--help"]`. */
  names: readonly string[];
  description: string;
  /** Undefined when the option takes no value. */
  value: ValueCompletion | undefined;
}

/** A positional argument. */
export interface CompletionArgument {
  name: string;
  value: ValueCompletion;
  /** The last argument may take any number of words. */
  variadic: boolean;
}

/** One command of the tree; the root has an empty path. */
export interface CompletionCommand {
  /** Names from below the root: `["inventory", "list"]`. */
  path: readonly string[];
  /** Its name and aliases, as typed to reach it from its parent. */
  names: readonly string[];
  description: string;
  commands: readonly CompletionCommand[];
  /** What its --help lists, and what a script offers after a `-`. */
  options: readonly CompletionOption[];
  /**
   * Its ancestors' options, which commander also accepts after it (`inventory list --env
   * staging`): not offered, as --help does not list them, but their values are completed.
   */
  inheritedOptions: readonly CompletionOption[];
  arguments: readonly CompletionArgument[];
}

/**
 * A value placeholder named `file` (`<file>`, `--db <file>`) or ending in `-file` completes
 * file names: commands declare file arguments by naming them so, and the scripts follow.
 */
function isFilePlaceholder(name: string): boolean {
  return name === "file" || name.endsWith("-file");
}

function placeholderOf(option: Option): string {
  return /[<[]([^>\]]*?)(\.\.\.)?[>\]]/.exec(option.flags)?.[1] ?? "";
}

function valueOf(choices: readonly string[] | undefined, placeholder: string): ValueCompletion {
  if (choices !== undefined && choices.length > 0) return { kind: "choices", choices };
  return isFilePlaceholder(placeholder) ? { kind: "files" } : { kind: "none" };
}

function describeOption(option: Option): CompletionOption {
  const names = [option.short, option.long].filter((name) => name !== undefined);
  const takesValue = option.required || option.optional;
  return {
    names,
    description: option.description,
    value: takesValue ? valueOf(option.argChoices, placeholderOf(option)) : undefined,
  };
}

function describeArgument(argument: Argument): CompletionArgument {
  return {
    name: argument.name(),
    value: valueOf(argument.argChoices, argument.name()),
    variadic: argument.variadic,
  };
}

/**
 * The options an ancestor passes down: all its visible ones except its help and version
 * (every command has its own help; the version belongs to the program).
 */
function inheritableOptions(command: Command): Option[] {
  const help = command.createHelp();
  return help
    .visibleOptions(command)
    .filter((option) => option.long !== "--help" && option.long !== "--version");
}

function describe(
  command: Command,
  path: readonly string[],
  inherited: readonly Option[],
): CompletionCommand {
  const help = command.createHelp();
  const own = help.visibleOptions(command);
  const ownNames = new Set(own.map((option) => option.long ?? option.short));
  const stillInherited = inherited.filter((option) => !ownNames.has(option.long ?? option.short));
  const passedDown = [...inheritableOptions(command), ...stillInherited];
  // visibleCommands() adds commander's implicit `help` command; offer only the real ones.
  const visible = new Set(help.visibleCommands(command));
  const commands = command.commands
    .filter((sub) => visible.has(sub))
    .map((sub) => describe(sub, [...path, sub.name()], passedDown));
  return {
    path,
    names: [command.name(), ...command.aliases()],
    description: command.description(),
    commands,
    options: own.map(describeOption),
    inheritedOptions: stillInherited.map(describeOption),
    arguments: command.registeredArguments.map(describeArgument),
  };
}

/** Every option accepted at `command`: its own, then inherited ones. */
export function acceptedOptions(command: CompletionCommand): CompletionOption[] {
  return [...command.options, ...command.inheritedOptions];
}

/** Reads the whole tree under `program`. */
export function describeProgram(program: Command): CompletionCommand {
  return describe(program, [], []);
}

/** Every command of the tree, the root first, parents before their subcommands. */
export function allCommands(root: CompletionCommand): CompletionCommand[] {
  return [root, ...root.commands.flatMap(allCommands)];
}
