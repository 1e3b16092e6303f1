/**
 * Counts from CSV: a header naming `petId` and `quantity` (any order, any case, other columns
 * ignored), one row per pet. A BOM, CRLF line ends, blank lines and all-empty rows are tolerated.
 */
import { CsvError, parse } from "csv-parse/sync";
import { readPetId, readQuantity } from "../api/limits.js";
import type { CountProblem, CountRow, ParsedCounts } from "./counts.js";

const REQUIRED_COLUMNS = ["petId", "quantity"] as const;

interface CsvRecord {
  record: string[];
  info: { lines: number };
  raw: string;
}

/** The line a record starts on: csv-parse reports the line it ends on. */
function startLine(record: CsvRecord): number {
  const body = record.raw.replace(/^\n+/, "").replace(/\n$/, "");
  return record.info.lines - (body.match(/\n/g)?.length ?? 0);
}

function readRecords(text: string): CsvRecord[] | CountProblem {
  // csv-parse miscounts lines when a quoted field holds CRLF; plain LF counts right.
  const normalised = text.replace(/\r\n?/g, "\n");
  try {
    // With info and raw, csv-parse returns {record, info, raw} objects, not bare arrays.
    return parse(normalised, {
      bom: true,
      info: true,
      raw: true,
      trim: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
    }) as unknown as CsvRecord[];
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const line = typeof error.lines === "number" ? error.lines : 1;
    return { location: { line }, message: `not valid CSV: ${error.message}` };
  }
}

function columnIndexes(header: readonly string[]): Record<"petId" | "quantity", number> | string {
  const names = header.map((name) => name.toLowerCase());
  const indexes = { petId: -1, quantity: -1 };
  for (const column of REQUIRED_COLUMNS) {
    const index = names.indexOf(column.toLowerCase());
    if (index === -1) {
      return `the header has no ${column} column (it has: ${header.join(",")}); expected a header line petId,quantity`;
    }
    if (names.indexOf(column.toLowerCase(), index + 1) !== -1) {
      return `the header has two ${column} columns`;
    }
    indexes[column] = index;
  }
  return indexes;
}

type CellReading<T> = { ok: true; value: T } | { ok: false; empty: boolean; reason: string };

/** Reads one cell under the whole-number rule; a problem message when it is missing or bad. */
function readCell<T>(
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

/** Parses and validates CSV counts; line numbers count the header as line 1. */
export function parseCsvCounts(text: string): ParsedCounts {
  const records = readRecords(text);
  if (!Array.isArray(records)) return { rows: [], problems: [records] };
  const [header, ...body] = records;
  if (header === undefined) {
    return {
      rows: [],
      problems: [
        { location: { line: 1 }, message: "no header: expected a first line petId,quantity" },
      ],
    };
  }
  const columns = columnIndexes(header.record);
  if (typeof columns === "string") {
    return { rows: [], problems: [{ location: { line: startLine(header) }, message: columns }] };
  }
  const rows: CountRow[] = [];
  const problems: CountProblem[] = [];
  for (const record of body) {
    const location = { line: startLine(record) };
    // csv-parse already trims cells; the whole-number rule ignores surrounding whitespace too.
    const petId = readCell("petId", record.record[columns.petId], readPetId);
    const quantity = readCell("quantity", record.record[columns.quantity], readQuantity);
    if ("problem" in petId) problems.push({ location, message: petId.problem });
    if ("problem" in quantity) problems.push({ location, message: quantity.problem });
    if ("value" in petId && "value" in quantity) {
      rows.push({ petId: petId.value, quantity: quantity.value, location });
    }
  }
  return { rows, problems };
}
