/** Desired stock counts read from a file, and the problems found while validating one. */
import type { CountSheet } from "./count-sheet.js";

/** The formats a counts file can have. */
export const COUNTS_FORMATS = ["csv", "json"] as const;
export type CountsFormat = (typeof COUNTS_FORMATS)[number];

/** Where a row came from: the file line (CSV), or the array entry and its line (JSON). */
export interface RowLocation {
  line: number;
  /** 1-based position in the JSON array; absent for CSV. */
  entry?: number | undefined;
}

/** One desired count: set `petId`'s stock to `quantity`. */
export interface CountRow {
  petId: bigint;
  quantity: number;
  location: RowLocation;
}

/** Something wrong with the file, located so the person fixing it can find it. */
export interface CountProblem {
  location: RowLocation;
  message: string;
}

/** What parsing a counts file yields: every valid row, and every problem (none means valid). */
export interface ParsedCounts {
  rows: CountRow[];
  problems: CountProblem[];
  /** Present when the file is a count sheet (count-sheet.ts): posted with `--as-of` only. */
  sheet?: CountSheet | undefined;
}

/** "line 3", or "entry 2 (line 5)" for a JSON array entry. */
export function describeLocation(location: RowLocation): string {
  return location.entry === undefined
    ? `line ${location.line}`
    : `entry ${location.entry} (line ${location.line})`;
}

/** Adds a problem for every petId seen before, naming where it was first seen. */
export function findDuplicates(
  rows: readonly Pick<CountRow, "petId" | "location">[],
): CountProblem[] {
  const first = new Map<bigint, RowLocation>();
  const problems: CountProblem[] = [];
  for (const row of rows) {
    const seen = first.get(row.petId);
    if (seen === undefined) {
      first.set(row.petId, row.location);
    } else {
      problems.push({
        location: row.location,
        message: `duplicate petId ${row.petId} (first on ${describeLocation(seen)})`,
      });
    }
  }
  return problems;
}
