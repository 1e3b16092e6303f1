/** `petstore inventory adjust <petId> <delta>`: a relative change, safe under concurrent writers. */
import { Command, InvalidArgumentError, Option } from "commander";
import { backoffPause, type BackoffSteps } from "../../api/backoff.js";
import { BATCH_SIZE } from "../../apply/batch-size.js";
import { COUNTS_FORMATS } from "../../apply/counts.js";
import {
  isValidQuantity,
  isValidRefPrefix,
  MAX_BATCH_CHANGES,
  MAX_REF_PREFIX_LENGTH,
  MAX_QUANTITY,
  MIN_QUANTITY,
} from "../../api/limits.js";
import type { InventoryItem } from "../../api/types.js";
import { isPreconditionFailed, quantityETag } from "../../client/etag.js";
import { CliError, UsageError } from "../../errors.js";
import { EXIT_CODES } from "../../exit-codes.js";
import { chooseRecordFormat } from "../../output/format.js";
import { writeInventoryItem } from "../../output/inventory.js";
import {
  deltaArgument,
  petIdArgument,
  REASON_OPTION_HELP,
  reasonOption,
  wholeNumberOption,
} from "../../program/arguments.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";
// Only the type: the file run (file readers, the batch loop) loads when --file is used.
import type { InventoryAdjustFileOptions } from "./adjust-file-run.js";
import { quantityAfterConflict, QuantityConflictError } from "./conflict.js";

export const DEFAULT_ADJUST_ATTEMPTS = 10;
const MAX_ADJUST_ATTEMPTS = 100;
/**
 * The wait after a round lost to another writer (src/api/backoff.ts): from 25 ms, doubling up
 * to 1 s. Short: a conflict is not an outage.
 */
export const ADJUST_BACKOFF: BackoffSteps = { baseMs: 25, maxMs: 1_000 };

export interface InventoryAdjustArguments {
  petId: string;
  delta: string;
}

export interface InventoryAdjustOptions {
  json?: boolean | undefined;
  /** Read→write rounds before giving up (the command gives its default). */
  attempts: number;
  /** Why, kept in the entry's history (`X-Change-Reason`). */
  reason?: string | undefined;
}

/** A commander argParser for `--ref-prefix`: 1 to 100 visible ASCII characters. */
function refPrefixOption(text: string): string {
  if (isValidRefPrefix(text)) return text;
  throw new InvalidArgumentError(
    `expected 1 to ${MAX_REF_PREFIX_LENGTH} visible ASCII characters (no spaces), such as till-1/2026-11-26.`,
  );
}

function signed(delta: number): string {
  return delta > 0 ? `+${delta}` : String(delta);
}

/**
 * Reads the entry, writes quantity + delta conditional on what it read (If-Match), and on a
 * 412 reads again and retries, up to `attempts` rounds. Each round's PATCH is a new intended
 * change (the client gives it a new Idempotency-Key); within a round, retries of a lost
 * response resend the same key, so the delta is applied at most once per round and exactly
 * once in all. A result outside MIN_QUANTITY..MAX_QUANTITY is refused before anything is sent
 * (exit 6).
 */
export async function runInventoryAdjust(
  args: InventoryAdjustArguments,
  options: InventoryAdjustOptions,
  context: CommandContext,
): Promise<void> {
  const petId = petIdArgument(args.petId);
  const delta = deltaArgument(args.delta);
  const format = chooseRecordFormat(options, context.io);
  const client = await context.apiClient();
  let item: InventoryItem | undefined;
  for (let round = 1; item === undefined; round++) {
    const read = await client.getInventoryItem(petId);
    const quantity = read.item.quantity + delta;
    if (!isValidQuantity(quantity)) {
      const bound = quantity < MIN_QUANTITY ? "below 0" : `above ${MAX_QUANTITY}`;
      throw new CliError(
        `pet ${petId} holds ${read.item.quantity}: ${signed(delta)} would make it ${quantity}, ${bound}; nothing was changed`,
        EXIT_CODES.invalid,
        `a quantity is a whole number from ${MIN_QUANTITY} to ${MAX_QUANTITY}; petstore inventory get ${petId} shows the entry`,
      );
    }
    try {
      ({ item } = await client.updateInventory(petId, quantity, {
        ifMatch: read.etag ?? quantityETag(read.item.quantity),
        reason: options.reason,
      }));
    } catch (error) {
      if (!isPreconditionFailed(error)) throw error;
      if (round >= options.attempts) {
        const current = await quantityAfterConflict(error, petId, client);
        throw new QuantityConflictError(
          `gave up adjusting pet ${petId} by ${signed(delta)}: it changed between each of ${options.attempts} reads and writes` +
            `${current === undefined ? "" : ` (it holds ${current} now)`}; nothing was changed`,
          `others are changing it right now: run the command again, or raise --attempts`,
          current,
        );
      }
      await context.sleep(backoffPause(ADJUST_BACKOFF, round, context.random));
    }
  }
  writeInventoryItem(item, format, context.io);
}

/** The options of `adjust` as commander parses them: the one-pet form's and --file's. */
type AdjustCommandOptions = InventoryAdjustOptions & InventoryAdjustFileOptions & { file?: string };

/** The options that belong to --file only, by the option value that says one was given. */
const FILE_ONLY_OPTIONS: readonly [string, (options: AdjustCommandOptions) => boolean][] = [
  ["--atomic", (options) => options.atomic !== undefined],
  ["--dry-run", (options) => options.dryRun !== undefined],
  ["--format", (options) => options.format !== undefined],
  ["--ref-prefix", (options) => options.refPrefix !== undefined],
  // commander gives --no-ref's value true unless the flag is given.
  ["--no-ref", (options) => options.ref === false],
];

/** Which form the arguments ask for; a mix of the two is a UsageError (exit 2). */
function chooseForm(
  petId: string | undefined,
  delta: string | undefined,
  options: AdjustCommandOptions,
  command: Command,
): { form: "file"; file: string } | { form: "one"; petId: string; delta: string } {
  if (options.file !== undefined) {
    if (petId !== undefined) {
      throw new UsageError(
        `--file takes no petId or delta (got ${[petId, delta].filter((word) => word !== undefined).join(" ")})`,
        "either petstore inventory adjust <petId> <delta>, or petstore inventory adjust --file <file>",
      );
    }
    if (command.getOptionValueSource("attempts") === "cli") {
      throw new UsageError(
        "--attempts is for adjusting one pet; --file sends the rows in batches",
        "leave out --attempts",
      );
    }
    return { form: "file", file: options.file };
  }
  const fileOnly = FILE_ONLY_OPTIONS.find(([, given]) => given(options));
  if (fileOnly !== undefined) {
    throw new UsageError(
      `${fileOnly[0]} goes with --file`,
      "petstore inventory adjust --file <file> applies a file of changes; see petstore inventory adjust --help",
    );
  }
  if (petId === undefined || delta === undefined) {
    throw new UsageError(
      `missing required argument '${petId === undefined ? "petId" : "delta"}'`,
      "petstore inventory adjust <petId> <delta> (for example 42 -1), or --file <file>",
    );
  }
  return { form: "one", petId, delta };
}

/** Defines `inventory adjust`. */
export function inventoryAdjustCommand(factory: Factory): Command {
  return (
    new Command("adjust")
      .description(
        "add to or remove from the stock of one pet (GET, then a conditional PATCH), or apply a file of changes once",
      )
      .argument("[petId]", "the pet, a whole number from 1 to 9223372036854775807")
      // `adjust 42 -1` needs no `--`: commander (14+) reads a negative number in a leaf command
      // as an argument, not an option, as long as no option in the chain has a digit for its
      // short flag. Keep it so; the tests parse `-1` before, after and between options.
      .argument("[delta]", "+N to add (received), -N to remove (sold); the sign is required")
      .addOption(
        new Option("--attempts <n>", "read-and-write rounds to try when others change it meanwhile")
          .argParser(wholeNumberOption("a whole number of attempts", 1, MAX_ADJUST_ATTEMPTS))
          .default(DEFAULT_ADJUST_ATTEMPTS),
      )
      .addOption(
        new Option(
          "--file <file>",
          "apply a file of changes instead: CSV petId,delta[,ref] or a JSON array of {petId, delta, ref?}; - reads stdin",
        ),
      )
      .addOption(
        new Option(
          "--format <format>",
          "with --file: its format (default: from the extension, else the content)",
        ).choices(COUNTS_FORMATS),
      )
      .addOption(
        new Option(
          "--ref-prefix <prefix>",
          "with --file: a row without a ref gets <prefix>:<row number>, such as till-1/2026-11-26:3 (name the day's run)",
        ).argParser(refPrefixOption),
      )
      .option(
        "--no-ref",
        "with --file: rows without a ref are applied every time the file runs (no exactly-once)",
      )
      .option("--dry-run", "with --file: ask the server what each row would do; change nothing")
      .option(
        "--atomic",
        `with --file: every row or none, in one atomic batch (at most ${MAX_BATCH_CHANGES} rows)`,
      )
      .addOption(new Option("--reason <text>", REASON_OPTION_HELP).argParser(reasonOption))
      .option("--json", "print the updated entry (with --file: the report) as JSON")
      .addHelpText(
        "after",
        `
One pet: reads the entry, then writes quantity + delta only if it still holds what was read.
When another writer got there first, it reads again and retries (jittered backoff), up to
--attempts rounds, then exits 8 having changed nothing. A result below 0 is refused (exit 6)
before anything is sent. The change is applied exactly once even when a response is lost:
the write carries an Idempotency-Key that its retries repeat. A negative delta needs no --.

A file (--file): CSV with a header petId,delta[,ref] (columns in any order), or a JSON
array of {"petId", "delta", "ref"}; a delta is a non-zero whole number (+5, -1, 5). The
whole file is checked first: a bad row stops the run (exit 2) naming the line, and nothing
is changed. Every row with a ref is applied exactly once, however often it is sent: the
server keeps each row's ref for good, and a row whose ref it has seen for that pet comes
back "duplicate" (already applied). Two rows of one file with the same ref are refused
(exit 2, both lines named). A file's bytes or name say nothing of which day it is (two
days' sales can be the same bytes, written to the same path), so a row without a ref
needs the command line to say it:
  --ref-prefix P   the row gets the ref P:N, N its row number (1 for the first row after
                   the header, blank lines not counted, or the first entry of a JSON array);
                   put the till and the day in P, and the same run again changes nothing
  --no-ref         the row is sent without a ref: applied every time the file runs
With neither, such a row stops the run before anything is sent (exit 2, naming the line).
Rows go in batches of ${BATCH_SIZE} (POST /inventory/batch), each
row alone: a row below 0 or of an unknown pet fails by itself (exit 7); with --atomic one
failing row means nothing is changed (exit 7). Exit 0 when every row was applied, now or
before. The reason defaults to "adjust <file name>". A server without the batch endpoint
cannot keep refs: exit 2, nothing changed. Interrupted (Ctrl-C, SIGTERM), it prints the
report and exits 130 or 143: while reading the file it stops at once, having sent nothing;
while sending, it lets the batch in flight finish and sends no more. Rows not sent are "not
attempted", counted apart from the failed ones. A second interrupt stops at once.

Examples:
  petstore inventory adjust 42 -1
  petstore inventory adjust 42 +12 --json --reason "delivery 2026-11-22"
  petstore inventory adjust 42 -3 --attempts 20
  petstore inventory adjust --file sales.csv --ref-prefix "till-1/$(date +%F)"
  petstore inventory adjust --file sales.csv --ref-prefix till-1/2026-11-24 --dry-run
  petstore inventory adjust --file delivery.json --atomic --ref-prefix delivery/2026-11-22
  till-export | petstore inventory adjust --file - --format csv --ref-prefix "till-1/$(date +%F)" --json
  petstore inventory adjust --file sales-with-refs.csv`,
      )
      .action(
        async (
          petId: string | undefined,
          delta: string | undefined,
          options: AdjustCommandOptions,
          command: Command,
        ) => {
          const chosen = chooseForm(petId, delta, options, command);
          const context = factory.context(readGlobalOptions(command));
          if (chosen.form === "one") {
            await runInventoryAdjust(chosen, options, context);
            return;
          }
          // The file readers and the batch loop load only when --file is used.
          const { runInventoryAdjustFile } = await import("./adjust-file-run.js");
          await runInventoryAdjustFile(chosen.file, options, context);
        },
      )
  );
}
