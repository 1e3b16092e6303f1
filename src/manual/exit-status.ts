/**
 * The exit codes and what each means, for the manual's EXIT STATUS: the rows of the one table
 * (src/exit-codes.ts) in the words `petstore --help` prints, so the two say the same.
 */
import { EXIT_CODE_TABLE } from "../exit-codes.js";

/** One row of the table: `130/143` shares a meaning, so a row may hold several codes. */
export interface ExitStatus {
  /** The codes as --help writes them: `2`, `130/143`. */
  label: string;
  codes: readonly number[];
  meaning: string;
}

/** The rows of EXIT_CODE_TABLE, each meaning on one line. */
export function exitStatuses(): ExitStatus[] {
  return EXIT_CODE_TABLE.map(({ codes, help }) => ({
    label: codes.join("/"),
    codes,
    meaning: help.join(" "),
  }));
}
