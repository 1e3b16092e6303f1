/** Which layout a command's data is printed in. */
import { UsageError } from "../errors.js";
import type { IoStreams } from "./io-streams.js";

export const OUTPUT_FORMATS = ["table", "tsv", "json", "csv"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The format flags a command may offer. */
export interface FormatFlags {
  json?: boolean | undefined;
  csv?: boolean | undefined;
}

/** `--json`/`--csv` when given, else a table on a terminal and tab-separated lines when piped. */
export function chooseFormat(flags: FormatFlags, io: Pick<IoStreams, "isTTY">): OutputFormat {
  if (flags.json === true && flags.csv === true) {
    throw new UsageError("--json and --csv cannot be used together");
  }
  if (flags.json === true) return "json";
  if (flags.csv === true) return "csv";
  return io.isTTY ? "table" : "tsv";
}

/** For commands without `--csv`: `--json` when given, else table or tab-separated lines. */
export function chooseRecordFormat(
  flags: Pick<FormatFlags, "json">,
  io: Pick<IoStreams, "isTTY">,
): Exclude<OutputFormat, "csv"> {
  if (flags.json === true) return "json";
  return io.isTTY ? "table" : "tsv";
}
