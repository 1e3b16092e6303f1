/**
 * Option lists in Markdown guides, generated from the commander program so they say what
 * --help says. A guide marks where a command's list goes:
 *
 *     <!-- options: inventory apply -->
 *     <!-- /options -->
 *
 * and `npm run docs` writes between the markers a table of that command's options (the
 * global options for `<!-- options: petstore -->`), in the words of --help; a test fails when
 * a block in README.md or docs/*.md is not what it would write.
 */
import type { Command } from "commander";
import { helpOptions } from "./help-text.js";
import { commandAt } from "./commands.js";

/** A marked block: the command it names and where it sits in the text. */
export interface OptionBlock {
  /** The words after `options:`, as written. */
  name: string;
  /** The command's path below the root (`["inventory", "apply"]`; `[]` for the globals). */
  path: string[];
  /** The text between the two markers. */
  content: string;
  /** Offsets of the content in the guide. */
  start: number;
  end: number;
}

/** A marker is a line of its own, outside code blocks. */
const OPEN = /^ {0,3}<!--\s*options:([^\n>]*?)-->[ \t]*$/gm;
const CLOSE = /^ {0,3}<!--\s*\/options\s*-->[ \t]*$/gm;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** A marker's words as a path: a leading `petstore` is optional (`petstore` alone: the root). */
function pathOf(name: string): string[] {
  const words = name
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "");
  return words[0] === "petstore" ? words.slice(1) : words;
}

function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

/** The offsets of the fenced code blocks (``` or ~~~), where a marker is only an example. */
function fencedRanges(markdown: string): [number, number][] {
  const ranges: [number, number][] = [];
  let offset = 0;
  let open: { fence: string; start: number } | undefined;
  for (const line of markdown.split("\n")) {
    const fence = FENCE.exec(line)?.[1];
    if (open === undefined && fence !== undefined) {
      open = { fence, start: offset };
    } else if (
      open !== undefined &&
      fence !== undefined &&
      fence[0] === open.fence[0] &&
      fence.length >= open.fence.length &&
      line.trim() === fence
    ) {
      ranges.push([open.start, offset + line.length]);
      open = undefined;
    }
    offset += line.length + 1;
  }
  if (open !== undefined) ranges.push([open.start, markdown.length]);
  return ranges;
}

function markersOf(markdown: string, marker: RegExp): RegExpExecArray[] {
  const fenced = fencedRanges(markdown);
  return [...markdown.matchAll(marker)].filter(
    (match) => !fenced.some(([from, to]) => match.index >= from && match.index < to),
  );
}

/**
 * The marked blocks of a guide, in order. Throws, naming the line, on an opening marker
 * without its `<!-- /options -->` before the next one, or a closing one without an opening one.
 */
export function findOptionBlocks(markdown: string): OptionBlock[] {
  const markers = [
    ...markersOf(markdown, OPEN).map((match) => ({ match, opens: true })),
    ...markersOf(markdown, CLOSE).map((match) => ({ match, opens: false })),
  ].sort((a, b) => a.match.index - b.match.index);
  const blocks: OptionBlock[] = [];
  let open: RegExpExecArray | undefined;
  const unclosed = (marker: RegExpExecArray) =>
    new Error(
      `line ${lineAt(markdown, marker.index)}: ${marker[0].trim()} has no <!-- /options --> after it`,
    );
  for (const { match, opens } of markers) {
    if (opens) {
      if (open !== undefined) throw unclosed(open);
      open = match;
    } else if (open === undefined) {
      throw new Error(
        `line ${lineAt(markdown, match.index)}: <!-- /options --> without an opening marker`,
      );
    } else {
      const name = open[1] ?? "";
      const start = open.index + open[0].length;
      blocks.push({
        name: name.trim(),
        path: pathOf(name),
        content: markdown.slice(start, match.index),
        start,
        end: match.index,
      });
      open = undefined;
    }
  }
  if (open !== undefined) throw unclosed(open);
  return blocks;
}

/**
 * Text for a Markdown table cell, on one line, with what Markdown would read as markup
 * escaped: `|` (a cell's end), `<` and `>` (HTML), `*`, backquotes, brackets, `&`, `~`, `\\`, and `_`
 * except inside a word (`PETSTORE_ENV`), where it never starts emphasis.
 */
export function markdownCell(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .replace(/[\\`*[\]<>|&~]|_(?![A-Za-z0-9])|(?<![A-Za-z0-9])_/g, "\\$&");
}

/**
 * The options of `command` as --help lists them (but its help option, as in the manual), as a
 * Markdown table: the option in code, its description as --help prints it.
 */
export function optionsTable(command: Command): string {
  const rows = helpOptions(command).map(
    (option) =>
      `| \`${option.term.replaceAll("|", "\\|")}\` | ${markdownCell(option.description)} |`,
  );
  return ["| option | description |", "| --- | --- |", ...rows].join("\n");
}

/**
 * The guide with every marked block's content replaced by `tables[i]`, the table of its i-th
 * block, between blank lines. Text outside the blocks is left as it is.
 */
export function replaceOptionBlocks(
  markdown: string,
  blocks: readonly OptionBlock[],
  tables: readonly string[],
): string {
  let out = "";
  let from = 0;
  blocks.forEach((block, index) => {
    out += `${markdown.slice(from, block.start)}\n\n${(tables[index] ?? "").trim()}\n\n`;
    from = block.end;
  });
  return out + markdown.slice(from);
}

/**
 * The guide with its option blocks as `npm run docs` writes them: each table generated from
 * `program` and put through `format` (Prettier, so `prettier --check` accepts the guide).
 * Throws on a marker that names no command of the program.
 */
export async function renderOptionBlocks(
  markdown: string,
  program: Command,
  format: (markdown: string) => Promise<string>,
): Promise<string> {
  const blocks = findOptionBlocks(markdown);
  const tables = await Promise.all(
    blocks.map((block) => {
      let command: Command;
      try {
        command = commandAt(program, block.path);
      } catch {
        throw new Error(
          `<!-- options: ${block.name} --> (line ${lineAt(markdown, block.start)}) names no command of ${program.name()}`,
        );
      }
      return format(optionsTable(command));
    }),
  );
  return replaceOptionBlocks(markdown, blocks, tables);
}
