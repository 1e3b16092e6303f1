/**
 * A thresholds file for `inventory low`: CSV with a header naming `petId` and `minimum` (any
 * order, any case, other columns ignored), one row per pet, read by the one CSV reader
 * (csv-rows.ts). The whole file is checked before anything is fetched: any problem is a
 * UsageError (exit 2) naming its line, as a counts file's are.
 */
import { readPetId, readQuantity } from "../api/limits.js";
import { findDuplicates, type CountProblem, type RowLocation } from "./counts.js";
import { readCsvCell, readCsvRecords } from "./csv-rows.js";
import { problemsError, readCountsText, sourceName, type CountsSource } from "./read-counts.js";

/** The header line a thresholds file starts with. */
export const THRESHOLDS_CSV_HEADER = "petId,minimum";

const THRESHOLD_COLUMNS = {
  required: ["petId", "minimum"],
  expectedHeader: THRESHOLDS_CSV_HEADER,
} as const;

/**
 * One pet's threshold: it is low while its quantity is below `minimum` (0 to 2147483647; a
 * minimum of 0 means never low, which exempts the pet from `--below`).
 */
export interface ThresholdRow {
  petId: bigint;
  minimum: number;
  location: RowLocation;
}

/** Every valid row, and every problem (none means the file is valid). */
export interface ParsedThresholds {
  rows: ThresholdRow[];
  problems: CountProblem[];
}

/** Parses and validates CSV thresholds; line numbers count the header as line 1. */
export function parseCsvThresholds(text: string): ParsedThresholds {
  const rows: ThresholdRow[] = [];
  const problems: CountProblem[] = [];
  const stop = readCsvRecords(text, THRESHOLD_COLUMNS, (columns) => (cells, line) => {
    const petId = readCsvCell("petId", cells[columns.petId], readPetId);
    const minimum = readCsvCell("minimum", cells[columns.minimum], readQuantity);
    if ("problem" in petId) problems.push({ location: { line }, message: petId.problem });
    if ("problem" in minimum) problems.push({ location: { line }, message: minimum.problem });
    if ("value" in petId && "value" in minimum) {
      rows.push({ petId: petId.value, minimum: minimum.value, location: { line } });
    }
  });
  if (stop !== undefined) return { rows: [], problems: [stop] };
  return { rows, problems: [...problems, ...findDuplicates(rows)] };
}

/**
 * Reads a thresholds file (stdin for `-`) and validates it whole; an unreadable or malformed
 * file is a UsageError naming every bad line.
 */
export async function readThresholds(path: string, source: CountsSource): Promise<ThresholdRow[]> {
  const text = await readCountsText(
    path,
    source,
    `give a readable CSV file with the header ${THRESHOLDS_CSV_HEADER}, or - to read stdin`,
  );
  const parsed = parseCsvThresholds(text);
  if (parsed.problems.length > 0) {
    throw problemsError(
      sourceName(path),
      parsed.problems,
      "fix the file and run again; nothing was fetched",
    );
  }
  return parsed.rows;
}
