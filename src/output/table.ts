/**
 * Boxed tables for people at a terminal (cli-table3); colour is applied by the caller. A table
 * wider than the terminal has its widest free-text columns (a reason, a ref) narrowed until it
 * fits, their cells wrapped between words (a word longer than its column is cut across lines,
 * never shortened): every character is still shown, each row's cells side by side.
 */
import Table from "cli-table3";
import stringWidth from "string-width";
import type { IoStreams } from "./io-streams.js";

export interface TableSpec {
  head: readonly string[];
  rows: readonly (readonly string[])[];
  /** Columns to right-align (numbers). */
  rightAligned?: readonly number[];
  /** Columns of free text that may be narrowed, their cells wrapped, to fit the terminal. */
  wrappable?: readonly number[];
}

/** Renders a table; the header is bold when colour is on, borders stay plain. */
export function renderTable(spec: TableSpec, io: Pick<IoStreams, "style" | "width">): string {
  const right = new Set(spec.rightAligned ?? []);
  const widths = io.width === undefined ? undefined : fittedWidths(spec, io.width);
  const table = new Table({
    head: spec.head.map((title) => io.style.bold(title)),
    colAligns: spec.head.map((_, index) => (right.has(index) ? "right" : "left")),
    // Styling off: cli-table3 would otherwise colour by its own terminal detection.
    style: { head: [], border: [], compact: true },
    // Cells come wrapped to their column (wrapped below).
    ...(widths === undefined ? {} : { colWidths: widths }),
  });
  for (const row of spec.rows) {
    table.push(
      widths === undefined
        ? [...row]
        : row.map((cell, index) => wrapped(cell, (widths[index] ?? 0) - PADDING)),
    );
  }
  return `${table.toString()}\n`;
}

/** A cell's padding, one space either side (cli-table3's default). */
const PADDING = 2;
/** A column is narrowed no further than this, nor than its title. */
const MIN_TEXT_WIDTH = 12 + PADDING;

/** How many terminal columns text takes, its widest line (colour codes take none). */
function shownWidth(text: string): number {
  return Math.max(0, ...text.split("\n").map((line) => stringWidth(line)));
}

const graphemes = new Intl.Segmenter();

/**
 * Column widths (padding included) that fit `terminalWidth`, narrowing the widest wrappable
 * column one step at a time; undefined when the table fits as it is, or has no column to
 * narrow. A table that cannot fit is narrowed as far as its columns allow.
 */
function fittedWidths(spec: TableSpec, terminalWidth: number): number[] | undefined {
  const wrappable = new Set(spec.wrappable ?? []);
  if (wrappable.size === 0) return undefined;
  const widths = spec.head.map(
    (title, index) =>
      Math.max(shownWidth(title), ...spec.rows.map((row) => shownWidth(row[index] ?? ""))) +
      PADDING,
  );
  const borders = spec.head.length + 1;
  const total = () => widths.reduce((sum, width) => sum + width, borders);
  if (total() <= terminalWidth) return undefined;
  const narrowest = spec.head.map((title, index) =>
    wrappable.has(index)
      ? Math.max(MIN_TEXT_WIDTH, shownWidth(title) + PADDING)
      : (widths[index] ?? 0),
  );
  while (total() > terminalWidth) {
    let widest = -1;
    widths.forEach((width, index) => {
      if (width > (narrowest[index] ?? width) && (widest < 0 || width > (widths[widest] ?? 0))) {
        widest = index;
      }
    });
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return widths;
}

/**
 * `text` (plain, a free-text cell) in lines of at most `width` terminal columns, broken between
 * words where it can be; a word wider than that is cut between characters.
 */
function wrapped(text: string, width: number): string {
  if (width < 1 || shownWidth(text) <= width) return text;
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(" ")) {
      const joined = line === "" ? word : `${line} ${word}`;
      if (stringWidth(joined) <= width) {
        line = joined;
        continue;
      }
      if (line !== "") lines.push(line);
      line = "";
      for (const { segment } of graphemes.segment(word)) {
        if (line !== "" && stringWidth(line + segment) > width) {
          lines.push(line);
          line = "";
        }
        line += segment;
      }
    }
    lines.push(line);
  }
  return lines.join("\n");
}
