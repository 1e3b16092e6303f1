/**
 * Boxed tables for people at a terminal (cli-table3); colour is applied by the caller. A table
 * wider than the terminal has its widest free-text columns (a reason, a ref) narrowed until it
 * fits, their cells wrapped between words (a word longer than its column is cut across lines,
 * never shortened): every character is still shown, each row's cells side by side. A table
 * that does not fit even so (a terminal of 80 columns and a history with refs, or 60 and the
 * orders) is shown as records instead, a block of "title  value" lines for each row, as
 * psql's `\x auto` does; a table of fields and their values, as those lines alone.
 */
import Table from "cli-table3";
import { shownWidth, wrapped } from "../text/wrap.js";
import type { IoStreams } from "./io-streams.js";

export interface TableSpec {
  head: readonly string[];
  rows: readonly (readonly string[])[];
  /** Columns to right-align (numbers). */
  rightAligned?: readonly number[];
  /** Columns of free text that may be narrowed, their cells wrapped, to fit the terminal. */
  wrappable?: readonly number[];
  /** Two columns, a field and its value (a pet): too narrow, a line for each row. */
  fields?: boolean;
}

/**
 * Renders a table; the header is bold when colour is on, borders stay plain. On a terminal too
 * narrow for it even narrowed, `narrow` renders the rows in its place (their own lines for a
 * kind of row that has them), else each row is a record.
 */
export function renderTable(
  spec: TableSpec,
  io: Pick<IoStreams, "style" | "width">,
  narrow?: (width: number) => string,
): string {
  spec = withoutEmptyNotes(spec);
  const right = new Set(spec.rightAligned ?? []);
  const widths = io.width === undefined ? undefined : fittedWidths(spec, io.width);
  // A table of no rows keeps its header: shown otherwise, it would show nothing at all.
  if (widths === "too narrow" && io.width !== undefined && spec.rows.length > 0) {
    if (narrow !== undefined) return narrow(io.width);
    return spec.fields === true
      ? fieldLines(spec.rows, io.width, io.style)
      : renderRecords(spec, io.width, io.style);
  }
  const table = new Table({
    head: spec.head.map((title) => io.style.bold(title)),
    colAligns: spec.head.map((_, index) => (right.has(index) ? "right" : "left")),
    // Styling off: cli-table3 would otherwise colour by its own terminal detection.
    style: { head: [], border: [], compact: true },
    // Cells come wrapped to their column (wrapped below).
    ...(widths === undefined || widths === "too narrow" ? {} : { colWidths: widths }),
  });
  for (const row of spec.rows) {
    table.push(
      widths === undefined || widths === "too narrow"
        ? [...row]
        : row.map((cell, index) => wrapped(cell, (widths[index] ?? 0) - PADDING)),
    );
  }
  return `${table.toString()}\n`;
}

/**
 * The spec without its note columns (a column titled "", such as a review's `not counted: 0`)
 * that no row has a note in: an empty column with no title only leaves a reader wondering.
 */
function withoutEmptyNotes(spec: TableSpec): TableSpec {
  const kept = spec.head.flatMap((title, index) =>
    title !== "" || spec.rows.some((row) => (row[index] ?? "") !== "") ? [index] : [],
  );
  if (kept.length === spec.head.length) return spec;
  const moved = (columns: readonly number[] = []) =>
    columns.flatMap((column) => (kept.includes(column) ? [kept.indexOf(column)] : []));
  return {
    ...spec,
    head: kept.map((index) => spec.head[index] ?? ""),
    rows: spec.rows.map((row) => kept.map((index) => row[index] ?? "")),
    rightAligned: moved(spec.rightAligned),
    wrappable: moved(spec.wrappable),
  };
}

/** A cell's padding, one space either side (cli-table3's default). */
const PADDING = 2;
/** A column is narrowed no further than this, nor than its title. */
const MIN_TEXT_WIDTH = 12 + PADDING;

/**
 * Column widths (padding included) that fit `terminalWidth`, narrowing the widest wrappable
 * column one step at a time; undefined when the table fits as it is; "too narrow" when it
 * does not fit even with every wrappable column at its narrowest.
 */
function fittedWidths(spec: TableSpec, terminalWidth: number): number[] | "too narrow" | undefined {
  const wrappable = new Set(spec.wrappable ?? []);
  const widths = spec.head.map(
    (title, index) =>
      Math.max(shownWidth(title), ...spec.rows.map((row) => shownWidth(row[index] ?? ""))) +
      PADDING,
  );
  const total = () => tableWidth(widths);
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
    if (widest < 0) return "too narrow";
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return widths;
}

/** A table's width in terminal columns: its columns' (padding included) and the borders. */
function tableWidth(widths: readonly number[]): number {
  return widths.reduce((sum, width) => sum + width, widths.length + 1);
}

/** A table of fields as lines: each field (bold), and its value wrapped under the others'. */
function fieldLines(
  rows: readonly (readonly string[])[],
  terminalWidth: number,
  style: IoStreams["style"],
): string {
  const fieldWidth = Math.max(...rows.map((row) => shownWidth(row[0] ?? "")));
  const indent = " ".repeat(fieldWidth + 2);
  return rows
    .map(([field = "", value = ""]) => {
      const lines = wrapped(value, Math.max(1, terminalWidth - indent.length)).split("\n");
      const padding = " ".repeat(fieldWidth - shownWidth(field));
      return value === ""
        ? `${style.bold(field)}\n`
        : `${style.bold(field)}${padding}  ${lines.join(`\n${indent}`)}\n`;
    })
    .join("");
}

/**
 * Each row as a record: a rule naming its number, then a line for each column, its title
 * (bold) and its value, the values wrapped to the terminal under one another.
 */
function renderRecords(spec: TableSpec, terminalWidth: number, style: IoStreams["style"]): string {
  const titleWidth = Math.max(...spec.head.map(shownWidth));
  const indent = " ".repeat(titleWidth + 2);
  const valueWidth = Math.max(1, terminalWidth - indent.length);
  return spec.rows
    .map((row, index) => {
      const rule = `─[ ${index + 1} of ${spec.rows.length} ]`;
      const lines = spec.head.map((title, column) => {
        const value = wrapped(row[column] ?? "", valueWidth)
          .split("\n")
          .join(`\n${indent}`);
        if (value === "") return title === "" ? undefined : style.bold(title);
        return `${style.bold(title)}${" ".repeat(titleWidth - shownWidth(title))}  ${value}`;
      });
      const shown = lines.filter((line) => line !== undefined);
      return `${rule}${"─".repeat(Math.max(0, Math.min(terminalWidth, 40) - rule.length))}\n${shown.join("\n")}\n`;
    })
    .join("");
}
