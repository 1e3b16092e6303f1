/**
 * Printing the change feed (`inventory changes`) a page at a time, each page written out
 * before the cursor that covers it is saved.
 */
import type { FeedChange } from "../api/types.js";
import { ApiError, type ClientFailure } from "../client/errors.js";
import { csvLine, tsvLine } from "./delimited.js";
import type { OutputFormat } from "./format.js";
import { printable } from "../text/printable.js";
import stringWidth from "string-width";
import { wrapped } from "../text/wrap.js";
import { changeCells, changeLines, changesTable, HISTORY_COLUMNS } from "./history.js";
import { writeFlushed, type IoStreams } from "./io-streams.js";

/** The fields of a change, in the order of TSV and CSV columns and JSON keys. */
export const CHANGE_COLUMNS = ["seq", ...HISTORY_COLUMNS] as const;

/**
 * How changes are laid out: a format of output/format.ts, or `lines`: on a terminal with
 * --follow, where a boxed table cannot be printed before its last row is known, a header
 * line once and then one aligned line per change as it comes.
 */
export type ChangesLayout = OutputFormat | "lines";

/** The layout for a format: a terminal's table becomes aligned lines when following. */
export function changesLayout(format: OutputFormat, follow: boolean): ChangesLayout {
  return format === "table" && follow ? "lines" : format;
}

/** Prints the feed's pages in one layout. */
export interface ChangesPrinter {
  /**
   * Prints a page of changes; resolves true once they are written out (handed on to the
   * system), false when they are held until finish() (the boxed table).
   */
  print(changes: readonly FeedChange[]): Promise<boolean>;
  /** Prints what is held (the table, or a note that there is nothing); resolves once written. */
  finish(): Promise<void>;
}

/** A nullable string as JSON: `null`, or JSON.stringify's text. */
const jsonText = (value: string | null): string =>
  value === null ? "null" : JSON.stringify(value);

/**
 * One change as one line of JSON, its keys in column order, int64 values exact: the text
 * JSON.stringify gives the change's fields, written directly (a follower prints 1,000 of
 * these a page, on whatever core it shares).
 */
export function changeJsonLine(change: FeedChange): string {
  return `{"seq":${change.seq},"at":${JSON.stringify(change.at)},"petId":${change.petId},"previous":${change.previous},"quantity":${change.quantity},"keyName":${jsonText(change.keyName)},"requestId":${jsonText(change.requestId)},"reason":${jsonText(change.reason)},"ref":${jsonText(change.ref)}}\n`;
}

function columnText(change: FeedChange, column: (typeof CHANGE_COLUMNS)[number]): string {
  const value = change[column];
  return value === null ? "" : String(value);
}

/** The tab-separated line of a change: ISO times, empty fields for nulls, control characters shown as U+FFFD. */
function tsvChange(change: FeedChange): string {
  return tsvLine(CHANGE_COLUMNS.map((column) => printable(columnText(change, column))));
}

/** The CSV line of a change: the text as the server sent it, quoted where needed. */
function csvChange(change: FeedChange): string {
  return csvLine(CHANGE_COLUMNS.map((column) => columnText(change, column)));
}

/** Columns of `lines`: title, width, right-aligned; the last one is not padded. */
const LINE_COLUMNS: readonly (readonly [string, number, boolean])[] = [
  ["seq", 9, true],
  ["when", 19, false],
  ["petId", 7, true],
  ["previous", 8, true],
  ["quantity", 8, true],
  ["change", 6, true],
  ["key", 12, false],
  ["ref", 20, false],
  ["reason", 0, false],
];

/**
 * The cells at their columns, two spaces apart: a cell wider than its column pushes the next
 * ones right only as far as it must, and the line is back in its columns when it can be.
 * Widths are terminal columns (a CJK key takes two a character).
 */
function alignedLine(fields: readonly string[]): string {
  let line = "";
  let at = 0;
  let end = 0;
  LINE_COLUMNS.forEach(([, width, right], index) => {
    const text = fields[index] ?? "";
    const shown = stringWidth(text);
    const gap = index === 0 ? 0 : 2;
    end += gap + width;
    const start = right ? end - shown : end - width;
    const pad = Math.max(gap, start - at);
    line += " ".repeat(pad) + text;
    at += pad + shown;
  });
  return line.trimEnd();
}

/**
 * What a person reads of a change on one line: its local time and the change's sign, no
 * request id. On a terminal, a reason that would run past its edge is wrapped under where it
 * starts, or below the line when the ref has pushed it too far right (under 20 columns left);
 * a change whose key and ref alone run past the edge is shown as its lines (changeLines).
 */
function personLine(change: FeedChange, width: number | undefined, arrow: string): string {
  const cells = changeCells(change);
  const fields = [
    change.seq.toString(),
    cells.when,
    change.petId.toString(),
    cells.previous,
    cells.quantity,
    cells.change,
    cells.key,
    cells.ref,
  ];
  const line = alignedLine([...fields, cells.reason]);
  if (width === undefined || stringWidth(line) <= width) return `${line}\n`;
  const head = alignedLine(fields);
  if (stringWidth(head) > width) return changeLines(change, { feed: true }, width, arrow);
  // Where the reason starts: the width of the line with a one-column reason, less that column.
  const start = stringWidth(alignedLine([...fields, "."])) - 1;
  const beside = start <= width - 20;
  const indent = " ".repeat(beside ? start : REASON_BELOW);
  const lines = wrapped(cells.reason, Math.max(1, width - indent.length)).split("\n");
  const first = beside ? `${head}${" ".repeat(start - stringWidth(head))}` : `${head}\n${indent}`;
  return `${first}${lines.join(`\n${indent}`)}\n`;
}

/** Where a reason wrapped below its line starts: under `when`. */
const REASON_BELOW = (LINE_COLUMNS[0]?.[1] ?? 0) + 2;

/**
 * The terminal width under which a follower prints each change as its lines (changeLines)
 * instead of one aligned line: the columns up to the ref and 20 of the reason (125).
 */
const NARROW_LINES =
  LINE_COLUMNS.reduce((sum, [, width], index) => sum + width + (index === 0 ? 0 : 2), 0) + 20;

/** The header of `lines`, and how each change is laid out, for a terminal `width` wide. */
function linesLayout(io: IoStreams): { header: string; line: (change: FeedChange) => string } {
  const { width } = io;
  if (width === undefined || width >= NARROW_LINES) {
    const titles = LINE_COLUMNS.map(([title]) => title);
    return {
      header: `${io.style.bold(alignedLine(titles))}\n`,
      line: (change) => personLine(change, width, io.symbols.arrow),
    };
  }
  // Each change's lines say what each part is: no header.
  return {
    header: "",
    line: (change) => changeLines(change, { feed: true }, width, io.symbols.arrow),
  };
}

/**
 * A printer for `layout`. `after` is the cursor the run started from, for the note a terminal
 * gets when there is no change. Every layout but the boxed table writes each page at once
 * and waits until it is out; JSON is one object per line (JSON Lines), CSV has a header.
 */
export function changesPrinter(
  layout: ChangesLayout,
  io: IoStreams,
  after: bigint,
): ChangesPrinter {
  const { out } = io;
  const each = (line: (change: FeedChange) => string) => async (changes: readonly FeedChange[]) => {
    if (changes.length > 0) await writeFlushed(out, changes.map(line).join(""));
    return true;
  };
  switch (layout) {
    case "json":
      return { print: each(changeJsonLine), finish: () => Promise.resolve() };
    case "tsv":
      return { print: each(tsvChange), finish: () => Promise.resolve() };
    case "csv": {
      let header: string | undefined = csvLine(CHANGE_COLUMNS);
      const headed = () => {
        const text = header ?? "";
        header = undefined;
        return text;
      };
      return {
        print: async (changes) => {
          const text = headed() + changes.map(csvChange).join("");
          if (text !== "") await writeFlushed(out, text);
          return true;
        },
        finish: async () => {
          if (header !== undefined) await writeFlushed(out, headed());
        },
      };
    }
    case "lines": {
      const layout = linesLayout(io);
      let header: string | undefined = layout.header;
      return {
        print: async (changes) => {
          const text = (header ?? "") + changes.map(layout.line).join("");
          header = undefined;
          if (text !== "") await writeFlushed(out, text);
          return true;
        },
        finish: () => Promise.resolve(),
      };
    }
    case "table": {
      const held: FeedChange[] = [];
      return {
        print: (changes) => {
          for (const change of changes) held.push(change);
          return Promise.resolve(false);
        },
        finish: () =>
          writeFlushed(
            out,
            held.length === 0
              ? `no changes after seq ${after.toString()}\n`
              : changesTable(held, io, { feed: true }),
          ),
      };
    }
  }
}

/** What a follower says, once, when the server goes away: why, and that it keeps asking. */
export function formatFeedLost(error: ClientFailure): string {
  const why =
    error instanceof ApiError
      ? `the server answered ${error.status}${error.code === undefined ? "" : ` ${error.code}`}: ${error.message}`
      : error.message;
  return `warning: ${why}; asking again until the server answers (interrupt to stop)\n`;
}

/** What a follower says when the server answers again after an outage. */
export function formatFeedBack(after: bigint): string {
  return `note: the server answers again; following the changes after seq ${after.toString()}\n`;
}
