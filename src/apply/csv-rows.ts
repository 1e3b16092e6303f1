/**
 * The one CSV reader of the files people hand to the CLI (counts for `apply`, changes for
 * `adjust --file`): csv-parse reads the text; this finds the columns the header names (any
 * order, any case; other columns ignored, as a till's export or a count sheet has its own,
 * except a column the other kind of file reads: a `quantity` beside `delta` says the file may
 * not be what the command takes) and the line each record starts on, and hands each data
 * record to the caller. A BOM, CRLF line ends, blank lines and all-empty rows are
 * tolerated. A file whose header is separated by semicolons or tabs (a spreadsheet's export in
 * many European locales) is refused naming its separator, rather than as a missing column.
 */
import { CsvError, parse } from "csv-parse/sync";
import type { CountProblem } from "./counts.js";

/** The columns a file must have and may have; names are matched without regard to case. */
export interface CsvColumns<Required extends string, Optional extends string = never> {
  required: readonly Required[];
  optional?: readonly Optional[];
  /** The header line a file should start with, for messages: `petId,quantity`. */
  expectedHeader: string;
  /** Other names a required column may go by (a count sheet's `counted` for `quantity`). */
  aliases?: Partial<Record<Required, readonly string[]>>;
  /**
   * Columns of the other kind of file, refused rather than ignored (names in lower case), each
   * with what to do instead: `petId,delta,quantity` given to `adjust --file` would add the
   * deltas and drop the quantities without a word.
   */
  refused?: Readonly<Record<string, string>>;
}

/** Where each column is in the file; -1 for an optional column the header does not name. */
export type ColumnIndexes<Name extends string> = Readonly<Record<Name, number>>;

/** One data record: its cells (trimmed), the line it starts on, its 1-based data row number. */
export type CsvRecordVisitor = (cells: readonly string[], line: number, row: number) => void;

interface RawRecord {
  record: string[];
  raw: string;
}

const NEWLINE = 10;
const SPACE = 32;
const TAB = 9;

function newlinesIn(text: string): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) {
    count += 1;
  }
  return count;
}

/**
 * How many lines before the record itself its raw text holds: the blank (or whitespace-only)
 * lines csv-parse skipped and put in front of it.
 */
function skippedLines(raw: string): number {
  let lines = 0;
  for (let index = 0; index < raw.length; index += 1) {
    const code = raw.charCodeAt(index);
    if (code === NEWLINE) lines += 1;
    else if (code !== SPACE && code !== TAB) break;
  }
  return lines;
}

/**
 * How much text csv-parse is given at once. A large file is parsed a part at a time, each part
 * ending at a line end, so that its records are read and dropped while young instead of all
 * kept until the end (100,000 rows parsed whole took ~45 MB more memory at the peak). Only a
 * text without quotes is cut: a quoted field may hold a line end.
 */
const PART_LENGTH = 16 * 1024;

/** The text in parts that each end at a line end (the last one at the end of the text). */
function* partsOf(text: string): Generator<string> {
  if (text.length <= PART_LENGTH || text.includes('"')) {
    yield text;
    return;
  }
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start + PART_LENGTH);
    const end = newline === -1 ? text.length : newline + 1;
    yield text.slice(start, end);
    start = end;
  }
}

/** One part's records, or the problem csv-parse found (its line counted from `firstLine`). */
function readRecords(part: string, first: boolean, firstLine: number): RawRecord[] | CountProblem {
  try {
    // `raw` (each record's text, with the blank lines skipped before it) gives the lines at
    // a third of the cost of `info`, which copies a dozen counters into every record.
    // All-empty records are skipped by the caller, not by csv-parse, which would drop their
    // text. A BOM is dropped at the start of the file only.
    return parse(part, {
      bom: first,
      raw: true,
      trim: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as unknown as RawRecord[];
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const line = firstLine - 1 + (typeof error.lines === "number" ? error.lines : 1);
    return { location: { line }, message: `not valid CSV: ${error.message}` };
  }
}

function isAllEmpty(cells: readonly string[]): boolean {
  for (const cell of cells) if (cell !== "") return false;
  return true;
}

function columnIndexes<Required extends string, Optional extends string>(
  header: readonly string[],
  columns: CsvColumns<Required, Optional>,
): ColumnIndexes<Required | Optional> | string {
  const names = header.map((name) => name.toLowerCase());
  const indexes: Record<string, number> = {};
  const aliases: Partial<Record<string, readonly string[]>> = columns.aliases ?? {};
  for (const [index, name] of names.entries()) {
    const instead = columns.refused?.[name];
    if (instead !== undefined) return `the header has a ${header[index]} column: ${instead}`;
  }
  const find = (column: string, required: boolean): string | undefined => {
    const named = [column, ...(aliases[column] ?? [])].filter((candidate) =>
      names.includes(candidate.toLowerCase()),
    );
    if (named.length > 1) {
      return `the header has both ${named.join(" and ")} columns, which both name the ${column}: keep one`;
    }
    const name = named[0];
    const index = name === undefined ? -1 : names.indexOf(name.toLowerCase());
    if (index === -1) {
      indexes[column] = -1;
      return required
        ? `the header has no ${column} column (it has: ${header.join(",")}); expected a header line ${columns.expectedHeader}`
        : undefined;
    }
    if (names.indexOf(name?.toLowerCase() ?? "", index + 1) !== -1) {
      return `the header has two ${name} columns`;
    }
    indexes[column] = index;
    return undefined;
  };
  for (const column of columns.required) {
    const problem = find(column, true);
    if (problem !== undefined) return problem;
  }
  for (const column of columns.optional ?? []) {
    const problem = find(column, false);
    if (problem !== undefined) return problem;
  }
  return indexes as ColumnIndexes<Required | Optional>;
}

/** Separators spreadsheets write in place of the comma, by name. */
const OTHER_SEPARATORS = [
  [";", "semicolon"],
  ["\t", "tab"],
] as const;

/** The first line that is not blank, and its number; undefined in a blank text. */
function firstLine(text: string): { text: string; line: number } | undefined {
  let start = text.startsWith("\uFEFF") ? 1 : 0;
  for (let line = 1; start < text.length; line += 1) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    const found = text.slice(start, end);
    if (found.trim() !== "") return { text: found, line };
    start = end + 1;
  }
  return undefined;
}

/** The header's names split at `separator`, unquoted, in lower case. */
function namesSplitAt(header: string, separator: string): string[] {
  return header.split(separator).map((name) =>
    name
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .trim()
      .toLowerCase(),
  );
}

/**
 * The problem of a header that names every required column only when split at another
 * separator than the comma: "the file looks semicolon-separated; …".
 */
function separatorProblem(
  text: string,
  columns: CsvColumns<string, string>,
): CountProblem | undefined {
  const header = firstLine(text);
  if (header === undefined) return undefined;
  const namesAll = (names: readonly string[]) =>
    columns.required.every((column) => names.includes(column.toLowerCase()));
  if (namesAll(namesSplitAt(header.text, ","))) return undefined;
  for (const [separator, name] of OTHER_SEPARATORS) {
    if (namesAll(namesSplitAt(header.text, separator))) {
      return {
        location: { line: header.line },
        message: `the file looks ${name}-separated; petstore reads comma-separated CSV: export it with a comma between fields (a header line ${columns.expectedHeader})`,
      };
    }
  }
  return undefined;
}

/**
 * The lines starting with `#` before anything else (a count sheet's heading: what it is and
 * how to post it), and the text after them.
 */
function withoutHeading(text: string): { lines: number; rest: string } {
  let start = text.startsWith("\uFEFF") ? 1 : 0;
  let lines = 0;
  while (text.startsWith("#", start)) {
    const newline = text.indexOf("\n", start);
    if (newline === -1) return { lines: lines + 1, rest: "" };
    lines += 1;
    start = newline + 1;
  }
  return lines === 0 ? { lines, rest: text } : { lines, rest: text.slice(start) };
}

/**
 * Reads CSV with a header naming `columns`, and calls `visit` for every data record in file
 * order (blank lines and all-empty rows skipped, and not counted as rows; a heading of lines
 * starting with `#` before the header skipped); line numbers count the header as line 1, or
 * as the line after the heading. `visit` is given where each column is and the header's names
 * as written. Returns the problem that stops the whole file
 * (not CSV, no header, a required column missing).
 */
export function readCsvRecords<Required extends string, Optional extends string = never>(
  text: string,
  columns: CsvColumns<Required, Optional>,
  visit: (
    indexes: ColumnIndexes<Required | Optional>,
    header: readonly string[],
  ) => CsvRecordVisitor,
): CountProblem | undefined {
  // csv-parse miscounts lines when a quoted field holds CRLF; plain LF counts right.
  const heading = withoutHeading(text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text);
  const normalised = heading.rest;
  const separator = separatorProblem(normalised, columns);
  if (separator !== undefined) {
    return { ...separator, location: { line: separator.location.line + heading.lines } };
  }
  // The line the next record's raw text starts on.
  let line = 1 + heading.lines;
  let onRecord: CsvRecordVisitor | undefined;
  let row = 0;
  let first = true;
  for (const part of partsOf(normalised)) {
    const records = readRecords(part, first, line);
    first = false;
    if (!Array.isArray(records)) return records;
    for (const record of records) {
      const start = line + skippedLines(record.raw);
      line += newlinesIn(record.raw);
      if (isAllEmpty(record.record)) continue;
      if (onRecord !== undefined) {
        row += 1;
        onRecord(record.record, start, row);
        continue;
      }
      // The first record that is not empty is the header.
      const indexes = columnIndexes(record.record, columns);
      if (typeof indexes === "string") return { location: { line: start }, message: indexes };
      onRecord = visit(indexes, record.record);
    }
  }
  if (onRecord === undefined) {
    return {
      location: { line: 1 },
      message: `no header: expected a first line ${columns.expectedHeader}`,
    };
  }
  return undefined;
}

/** What a cell's rule says of it: its value, or why it is not one (`empty` when blank). */
export type CellReading<T> = { ok: true; value: T } | { ok: false; empty: boolean; reason: string };

/** Reads one cell by its column's rule; a problem message when it is missing or bad. */
export function readCsvCell<T>(
  column: string,
  cell: string | undefined,
  read: (text: string) => CellReading<T>,
): { value: T } | { problem: string } {
  if (cell === undefined) return { problem: `missing ${column}` };
  const reading = read(cell);
  if (reading.ok) return { value: reading.value };
  return {
    problem: reading.empty ? `missing ${column}` : `invalid ${column} "${cell}": ${reading.reason}`,
  };
}
