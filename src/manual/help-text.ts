/**
 * What a command's --help says, read from the same commander objects that print it: the
 * options as --help lists them, and the text added after the lists (`addHelpText("after")`)
 * cut into blocks, so a manual or a guide shows the words of --help and cannot drift from it.
 */
import type { EventEmitter } from "node:events";
import type { Command, Option } from "commander";

/** An option as --help lists it. */
export interface HelpOption {
  /** `--env <env>`, `-h, --help`. */
  term: string;
  /** The description with commander's additions: `(default: 10000)`, `(choices: …)`. */
  description: string;
}

/** A paragraph of the text after the lists, or a titled list such as `Examples:`. */
export type HelpBlock =
  /** Lines of prose; indented lines among them are shown as they are (a command, a format). */
  | { kind: "prose"; lines: readonly string[] }
  /** `Title:` then indented lines: the title without its colon, the lines unindented. */
  | { kind: "titled"; title: string; lines: readonly string[] };

/**
 * The options --help lists for `command`, except the help option on commands below the root:
 * every command has it, so a manual lists it once, with the program's options.
 */
export function helpOptions(command: Command): HelpOption[] {
  const help = command.createHelp();
  const isRoot = command.parent === null;
  return help
    .visibleOptions(command)
    .filter((option: Option) => isRoot || option.long !== "--help")
    .map((option) => ({
      term: help.optionTerm(option),
      description: help.optionDescription(option),
    }));
}

/** The text `command` adds after its --help lists, as commander prints it. */
export function afterHelpText(command: Command): string {
  let text = "";
  // addHelpText() listens for this event, which outputHelp() emits; Command is an EventEmitter
  // at run time, though its types do not say so.
  (command as unknown as EventEmitter).emit("afterHelp", {
    error: false,
    command,
    write: (chunk: string) => {
      text += chunk;
    },
  });
  return text;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Removes the indentation the lines share, keeping what one has more than the others. */
export function dedent(lines: readonly string[]): string[] {
  const indents = lines.filter((line) => line.trim() !== "").map(indentOf);
  const common = indents.length === 0 ? 0 : Math.min(...indents);
  return lines.map((line) => line.slice(common).trimEnd());
}

function toBlock(lines: readonly string[]): HelpBlock {
  const [first, ...rest] = lines;
  const isTitle = first !== undefined && /^\S.*:$/.test(first);
  if (isTitle && rest.length > 0 && rest.every((line) => indentOf(line) > 0)) {
    return { kind: "titled", title: first.slice(0, -1), lines: dedent(rest) };
  }
  return { kind: "prose", lines: lines.map((line) => line.trimEnd()) };
}

/** The text after `command`'s --help lists, cut at blank lines into blocks. */
export function afterHelpBlocks(command: Command): HelpBlock[] {
  return afterHelpText(command)
    .split(/\n[ \t]*\n/)
    .map((block) => block.split("\n").filter((line) => line.trim() !== ""))
    .filter((lines) => lines.length > 0)
    .map(toBlock);
}

/** The lines of the block titled `title` (`Examples`), or undefined when there is none. */
export function titledBlock(
  blocks: readonly HelpBlock[],
  title: string,
): readonly string[] | undefined {
  for (const block of blocks) {
    if (block.kind === "titled" && block.title === title) return block.lines;
  }
  return undefined;
}
