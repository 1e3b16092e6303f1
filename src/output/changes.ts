/**
 * Printing the change feed (`inventory changes`) a page at a time, each page written out
 * before the cursor that covers it is saved.
 */
import type { FeedChange } from "../api/types.js";
import { ApiError, type ClientFailure } from "../client/errors.js";
import { csvLine, tsvLine } from "./delimited.js";
import type { OutputFormat } from "./format.js";
import { printable } from "../text/printable.js";
import { wrapped } from "../text/wrap.js";
import { changeCells, changesTable, HISTORY_COLUMNS } from "./history.js";
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
 */
function alignedLine(fields: readonly string[]): string {
  let line = "";
  let end = 0;
  LINE_COLUMNS.forEach(([, width, right], index) => {
    const text = fields[index] ?? "";
    const gap = index === 0 ? 0 : 2;
    end += gap + width;
    const start = right ? end - text.length : end - width;
    line += " ".repeat(Math.max(gap, start - line.length)) + text;
  });
  return line.trimEnd();
}

/** What a person reads of a change: its local time and the change's sign, no request id. */
function personLine(change: FeedChange): string {
  const cells = changeCells(change);
  return `${alignedLine([
    change.seq.toString(),
    cells.when,
    change.petId.toString(),
    cells.previous,
    cells.quantity,
    cells.change,
    cells.key,
    cells.ref,
    cells.reason,
  ])}\n`;
}

/**
 * The terminal width under which a change's line is split in two: the columns up to the ref
 * and 20 of the reason (125) do not fit, so the key, the ref and the reason go on a line of
 * their own, wrapped under the change. The first line takes its 67 columns (seq to change)
 * whatever the terminal.
 */
const NARROW_LINES =
  LINE_COLUMNS.reduce((sum, [, width], index) => sum + width + (index === 0 ? 0 : 2), 0) + 20;
/** The columns of the first line when split (seq to change); the rest goes below. */
const FIRST_LINE_COLUMNS = 6;
/** Where the second line starts: under `when`. */
const SECOND_LINE_INDENT = " ".repeat((LINE_COLUMNS[0]?.[1] ?? 0) + 2);

/** A change as two lines for a narrow terminal: the numbers, then the key, `ref REF` and the reason. */
function narrowPersonLines(change: FeedChange, width: number): string {
  const cells = changeCells(change);
  const first = alignedLine([
    change.seq.toString(),
    cells.when,
    change.petId.toString(),
    cells.previous,
    cells.quantity,
    cells.change,
  ]);
  const rest = [cells.key, cells.ref === "" ? "" : `ref ${cells.ref}`, cells.reason]
    .filter((text) => text !== "")
    .join("  ");
  return `${first}\n${rest === "" ? "" : `${indented(rest, width)}\n`}`;
}

/** `text` wrapped to the terminal under the second line's indent. */
function indented(text: string, width: number): string {
  const lines = wrapped(text, Math.max(1, width - SECOND_LINE_INDENT.length)).split("\n");
  return lines.map((line) => SECOND_LINE_INDENT + line).join("\n");
}

/** The header of `lines`, and how each change is laid out, for a terminal `width` wide. */
function linesLayout(
  width: number | undefined,
  style: IoStreams["style"],
): { header: string; line: (change: FeedChange) => string } {
  const titles = LINE_COLUMNS.map(([title]) => title);
  if (width === undefined || width >= NARROW_LINES) {
    return { header: `${style.bold(alignedLine(titles))}\n`, line: personLine };
  }
  const first = alignedLine(titles.slice(0, FIRST_LINE_COLUMNS));
  const second = SECOND_LINE_INDENT + ["key", "ref", "reason"].join("  ");
  return {
    header: `${style.bold(first)}\n${style.bold(second)}\n`,
    line: (change) => narrowPersonLines(change, width),
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
      const layout = linesLayout(io.width, io.style);
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
