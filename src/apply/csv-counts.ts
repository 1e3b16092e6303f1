/**
 * Counts from CSV: a header naming `petId` and `quantity` (any order, any case, other columns
 * ignored), one row per pet. A BOM, CRLF line ends, blank lines and all-empty rows are tolerated.
 */
import { CsvError, parse } from "csv-parse/sync";
import { isValidQuantity, parsePetId } from "../api/limits.js";
import {
  PET_ID_EXPECTED,
  QUANTITY_EXPECTED,
  type CountProblem,
  type CountRow,
  type ParsedCounts,
} from "./counts.js";

const REQUIRED_COLUMNS = ["petId", "quantity"] as const;
const PLAIN_QUANTITY = /^(0|[1-9][0-9]*)$/;

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

function cellProblem(column: string, cell: string | undefined, expected: string): string {
  return cell === undefined || cell === ""
    ? `missing ${column}`
    : `invalid ${column} "${cell}": ${expected}`;
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
    const petIdCell = record.record[columns.petId];
    const quantityCell = record.record[columns.quantity];
    const petId = petIdCell === undefined ? undefined : parsePetId(petIdCell);
    const quantity =
      quantityCell !== undefined && PLAIN_QUANTITY.test(quantityCell)
        ? Number(quantityCell)
        : Number.NaN;
    if (petId === undefined) {
      problems.push({ location, message: cellProblem("petId", petIdCell, PET_ID_EXPECTED) });
    }
    if (!isValidQuantity(quantity)) {
      problems.push({
        location,
        message: cellProblem("quantity", quantityCell, QUANTITY_EXPECTED),
      });
    }
    if (petId !== undefined && isValidQuantity(quantity)) rows.push({ petId, quantity, location });
  }
  return { rows, problems };
}
