/**
 * The exit codes and what each means, read from the one table the CLI already has: the
 * `Exit codes:` list of `petstore --help` (src/program/run.ts). The manual's EXIT STATUS is
 * generated from it, so the two say the same; a test checks that it covers EXIT_CODES.
 */
import type { Command } from "commander";
import { afterHelpBlocks, titledBlock } from "./help-text.js";

/** One row of the table: `130/143` shares a meaning, so a row may hold several codes. */
export interface ExitStatus {
  /** The codes as --help writes them: `2`, `130/143`. */
  label: string;
  codes: readonly number[];
  meaning: string;
}

const ROW = /^(\d+(?:\/\d+)*)\s{2,}(\S.*)$/;

/**
 * The rows of the `Exit codes:` list in the root's --help; a line indented under a row
 * continues its meaning. Throws when the list is missing or a line is neither.
 */
export function exitStatuses(program: Command): ExitStatus[] {
  const lines = titledBlock(afterHelpBlocks(program), "Exit codes");
  if (lines === undefined) {
    throw new Error("petstore --help has no 'Exit codes:' list to read the exit statuses from");
  }
  const rows: ExitStatus[] = [];
  for (const line of lines) {
    const row = ROW.exec(line);
    const last = rows.at(-1);
    if (row?.[1] !== undefined && row[2] !== undefined) {
      rows.push({ label: row[1], codes: row[1].split("/").map(Number), meaning: row[2] });
    } else if (last !== undefined && /^\s/.test(line)) {
      last.meaning = `${last.meaning} ${line.trim()}`;
    } else {
      throw new Error(`cannot read this line of the 'Exit codes:' list in --help: ${line}`);
    }
  }
  return rows;
}
