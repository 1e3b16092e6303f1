/** `petstore inventory adjust <petId> <delta>`: a relative change, safe under concurrent writers. */
import { Command, Option } from "commander";
import { backoffPause, type BackoffSteps } from "../../api/backoff.js";
import { isValidQuantity, MAX_QUANTITY, MIN_QUANTITY } from "../../api/limits.js";
import type { InventoryItem } from "../../api/types.js";
import { isPreconditionFailed, quantityETag } from "../../client/etag.js";
import { CliError, EXIT_CODES } from "../../errors.js";
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

/** Defines `inventory adjust`. */
export function inventoryAdjustCommand(factory: Factory): Command {
  return (
    new Command("adjust")
      .description("add to or remove from the stock of one pet (GET, then a conditional PATCH)")
      .argument("<petId>", "the pet, a whole number from 1 to 9223372036854775807")
      // `adjust 42 -1` needs no `--`: commander (14+) reads a negative number in a leaf command
      // as an argument, not an option, as long as no option in the chain has a digit for its
      // short flag. Keep it so; the tests parse `-1` before, after and between options.
      .argument("<delta>", "+N to add (received), -N to remove (sold); the sign is required")
      .addOption(
        new Option("--attempts <n>", "read-and-write rounds to try when others change it meanwhile")
          .argParser(wholeNumberOption("a whole number of attempts", 1, MAX_ADJUST_ATTEMPTS))
          .default(DEFAULT_ADJUST_ATTEMPTS),
      )
      .addOption(new Option("--reason <text>", REASON_OPTION_HELP).argParser(reasonOption))
      .option("--json", "print the updated entry as a JSON object")
      .addHelpText(
        "after",
        `
Reads the entry, then writes quantity + delta only if it still holds what was read. When
another writer got there first, it reads again and retries (jittered backoff), up to
--attempts rounds, then exits 8 having changed nothing. A result below 0 is refused (exit 6)
before anything is sent. The change is applied exactly once even when a response is lost:
the write carries an Idempotency-Key that its retries repeat. A negative delta needs no --.

Examples:
  petstore inventory adjust 42 -1
  petstore inventory adjust 42 +12 --json --reason "delivery 2026-11-22"
  petstore inventory adjust 42 -3 --attempts 20`,
      )
      .action(
        async (petId: string, delta: string, options: InventoryAdjustOptions, command: Command) => {
          await runInventoryAdjust(
            { petId, delta },
            options,
            factory.context(readGlobalOptions(command)),
          );
        },
      )
  );
}
