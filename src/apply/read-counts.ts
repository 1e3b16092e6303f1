/**
 * Reads a counts file (or stdin for `-`), picks CSV or JSON, and validates every row before
 * anything is sent: any problem is a UsageError (exit 2) listing where, and nothing is applied.
 */
import { extname } from "node:path";
import { UsageError } from "../errors.js";
import { fileErrorReason } from "../api/file-error.js";
import { shellWord } from "../text/shell-word.js";
import {
  describeLocation,
  findDuplicates,
  type CountProblem,
  type CountRow,
  type CountsFormat,
} from "./counts.js";
import type { CountSheet } from "./count-sheet.js";
import { parseCsvCounts } from "./csv-counts.js";
import { parseJsonCounts } from "./json-counts.js";

/** How many problems an error lists before saying how many more there are. */
const MAX_LISTED_PROBLEMS = 20;

/** Where to read from. */
export interface CountsSource {
  readFile: (path: string) => Promise<string>;
  readStdin: () => Promise<string>;
}

/** The file's name as messages show it. */
export function sourceName(path: string): string {
  return path === "-" ? "stdin" : path;
}

/** Reads the whole input; an unreadable file is a UsageError (with `hint`, what to give). */
export async function readCountsText(
  path: string,
  source: CountsSource,
  hint = "give a readable CSV or JSON file, or - to read stdin",
): Promise<string> {
  if (path === "-") return source.readStdin();
  try {
    return await source.readFile(path);
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${fileErrorReason(error)}`, hint);
  }
}

/** `--format` when given, else the extension (.csv, .json), else the content's first character. */
export function detectCountsFormat(
  path: string,
  text: string,
  flag: CountsFormat | undefined,
): CountsFormat {
  if (flag !== undefined) return flag;
  const extension = extname(path).toLowerCase();
  if (extension === ".csv") return "csv";
  if (extension === ".json") return "json";
  const first = /^\uFEFF?\s*(\S)/.exec(text)?.[1];
  return first === "[" || first === "{" ? "json" : "csv";
}

/**
 * The error for a file with problems: each problem located (sorted by line), up to
 * MAX_LISTED_PROBLEMS of them; `hint` says what to do (by default: nothing was applied).
 */
export function problemsError(
  name: string,
  problems: readonly CountProblem[],
  hint = "fix the file and run again; nothing was applied",
): UsageError {
  const sorted = [...problems].sort(
    (a, b) =>
      a.location.line - b.location.line || (a.location.entry ?? 0) - (b.location.entry ?? 0),
  );
  const [only] = sorted;
  if (only !== undefined && sorted.length === 1) {
    return new UsageError(`${name} ${describeLocation(only.location)}: ${only.message}`, hint);
  }
  const listed = sorted
    .slice(0, MAX_LISTED_PROBLEMS)
    .map((problem) => `\n  ${describeLocation(problem.location)}: ${problem.message}`)
    .join("");
  const more =
    sorted.length > MAX_LISTED_PROBLEMS
      ? `\n  ... and ${sorted.length - MAX_LISTED_PROBLEMS} more`
      : "";
  return new UsageError(`${name} has ${sorted.length} problems:${listed}${more}`, hint);
}

/**
 * Parses and validates the counts text of `file` (a path, or - for stdin); throws a UsageError
 * naming every bad line. Counts as of `asOf` (`apply --as-of`): a CSV row with a blank quantity
 * is a pet not counted (a count sheet's). A count sheet (count-sheet.ts) is refused without
 * `asOf`, and with another seq than its heading states: its counts set as they are would undo
 * the sales made since it was printed.
 */
export function parseCounts(
  text: string,
  format: CountsFormat,
  file: string,
  asOf?: bigint,
): CountRow[] {
  const name = sourceName(file);
  const parsed =
    format === "csv" ? parseCsvCounts(text, asOf !== undefined) : parseJsonCounts(text);
  if (parsed.sheet !== undefined) checkSheetPosting(parsed.sheet, file, asOf);
  const problems = [...parsed.problems, ...findDuplicates(parsed.rows)];
  if (problems.length > 0) throw problemsError(name, problems);
  return parsed.rows;
}

/** Refuses a count sheet posted without `--as-of`, or as of another seq than its heading's. */
function checkSheetPosting(sheet: CountSheet, file: string, asOf: bigint | undefined): void {
  const name = sourceName(file);
  const { headingSeq } = sheet;
  const post = `petstore inventory apply ${file === "-" ? "-" : shellWord(file)} --as-of ${headingSeq ?? "SEQ"}`;
  if (asOf === undefined) {
    const what =
      headingSeq === undefined
        ? "is a count sheet (its counts are in a counted column)"
        : `is a count sheet as of seq ${headingSeq}`;
    throw new UsageError(
      `${name} ${what}: set as they are, its counts would undo every sale made since it was printed; nothing was applied`,
      headingSeq === undefined
        ? `post it as counts with ${post}, SEQ being the seq the sheet was printed at (petstore inventory count --sheet heads it with that seq); or, if these are plain quantities to set, name the column quantity`
        : `post it as counts with ${post}: what was sold since is kept`,
    );
  }
  if (headingSeq !== undefined && headingSeq !== asOf) {
    throw new UsageError(
      `${name} is a count sheet as of seq ${headingSeq} (its heading says so), not as of ${asOf}; nothing was applied`,
      `post it with ${post}: its books, and so its counts, are as of that seq`,
    );
  }
}
