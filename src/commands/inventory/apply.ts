/** `petstore inventory apply <file>`: reconciles stock with a file of counted quantities. */
import { Command, InvalidArgumentError, Option } from "commander";
import { COUNTS_FORMATS, type CountsFormat } from "../../apply/counts.js";
import type { Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

export const DEFAULT_CONCURRENCY = 8;
const MAX_CONCURRENCY = 64;

export interface ApplyOptions {
  format?: CountsFormat | undefined;
  dryRun?: boolean | undefined;
  maxChanges?: number | undefined;
  concurrency?: number | undefined;
  json?: boolean | undefined;
  /** --verbose: the HTTP trace goes to stderr, so no progress bar is drawn over it. */
  verbose?: boolean | undefined;
}

function wholeNumber(name: string, min: number, max: number) {
  return (text: string): number => {
    const value = Number(text);
    if (!/^[0-9]+$/.test(text) || value < min || value > max) {
      throw new InvalidArgumentError(`expected ${name}, a whole number from ${min} to ${max}.`);
    }
    return value;
  };
}

/** Defines `inventory apply`. */
export function applyCommand(factory: Factory): Command {
  return new Command("apply")
    .description(
      "set the stock of many pets from a CSV or JSON file of counts, changing only what differs",
    )
    .argument(
      "<file>",
      "CSV with a petId,quantity header, or a JSON array of {petId, quantity}; - reads stdin",
    )
    .addOption(
      new Option(
        "--format <format>",
        "input format (default: from the extension, else the content)",
      ).choices(COUNTS_FORMATS),
    )
    .option("--dry-run", "print what would change, change nothing")
    .addOption(
      new Option(
        "--max-changes <n>",
        "refuse the whole run (exit 2) if more than n entries would change",
      ).argParser(wholeNumber("a number of entries", 0, Number.MAX_SAFE_INTEGER)),
    )
    .addOption(
      new Option("--concurrency <n>", "PATCH requests in flight at once")
        .argParser(wholeNumber("a number of requests", 1, MAX_CONCURRENCY))
        .default(DEFAULT_CONCURRENCY),
    )
    .option("--json", "print the report (or with --dry-run, the plan) as JSON")
    .addHelpText(
      "after",
      `
The whole file is checked first: a bad row or a duplicate petId stops the run (exit 2)
naming the line, and nothing is changed. Then the current stock is fetched once and only
the pets whose quantity differs are set. A row the server refuses (for example an unknown
pet) fails alone; the others are still applied, and the exit code is 7. Running the same
file again changes nothing more, so a failed or interrupted run can simply be repeated.

Report: a summary, the changes and every failure on stdout (--json: {"changed", "unchanged",
"failed", "results"}); a progress bar on stderr when it is a terminal.

Examples:
  petstore inventory apply counts.csv --dry-run
  petstore inventory apply counts.csv
  petstore inventory apply --max-changes 500 --json counts.csv >> /var/log/petstore-apply.log
  export-counts | petstore inventory apply --format csv -`,
    )
    .action(async (file: string, options: ApplyOptions, command: Command) => {
      const globals = readGlobalOptions(command);
      // The CSV parser and progress bar load only when apply runs, not for every command.
      const { runApply } = await import("./apply-run.js");
      await runApply(file, { ...options, verbose: globals.verbose }, factory.context(globals));
    });
}
