/** `inventory low`: which entries are below their threshold; exit 9 when any is. */
import type { InventoryItem, PetStatus } from "../../api/types.js";
// Only the type: the CSV reader loads when --thresholds is given.
import type { ThresholdRow } from "../../apply/thresholds.js";
import { LowStockError, UsageError } from "../../errors.js";
import { chooseFormat } from "../../output/format.js";
import {
  noThresholdsWarning,
  unlistedPetsWarning,
  writeLowStock,
  type LowStockEntry,
} from "../../output/low.js";
import type { CommandContext } from "../../program/factory.js";

/** The options of `inventory low`, as its command definition parses them. */
export interface InventoryLowOptions {
  /** Every pet whose quantity is below this is low (unless the thresholds file says otherwise). */
  below?: number | undefined;
  /** A CSV file of `petId,minimum`; `-` is stdin. */
  thresholds?: string | undefined;
  status?: PetStatus | undefined;
  json?: boolean | undefined;
  csv?: boolean | undefined;
}

/** What the inventory and the thresholds say. */
export interface LowStock {
  /** The entries below their minimum, sorted by petId. */
  low: LowStockEntry[];
  /** How many entries (of the status asked for) had a minimum, and so were checked. */
  checked: number;
  /** The rows of the thresholds file whose pet the inventory does not list, in file order. */
  unlisted: ThresholdRow[];
}

function byPetId(a: LowStockEntry, b: LowStockEntry): number {
  return a.petId < b.petId ? -1 : a.petId > b.petId ? 1 : 0;
}

/**
 * Decides which entries are low: an entry's minimum is its row's in the thresholds file, else
 * `below`; an entry with neither is not checked, and one of another `status` is left out. It
 * is low when its quantity is below its minimum (so a minimum of 0 is never low).
 */
export function findLowStock(
  items: readonly InventoryItem[],
  thresholds: readonly ThresholdRow[],
  options: Pick<InventoryLowOptions, "below" | "status">,
): LowStock {
  const minimums = new Map<bigint, number>();
  for (const row of thresholds) minimums.set(row.petId, row.minimum);
  const listed = new Set<bigint>();
  const low: LowStockEntry[] = [];
  let checked = 0;
  for (const item of items) {
    if (minimums.size > 0) listed.add(item.petId);
    if (options.status !== undefined && item.status !== options.status) continue;
    const minimum = minimums.get(item.petId) ?? options.below;
    if (minimum === undefined) continue;
    checked += 1;
    if (item.quantity < minimum) {
      low.push({
        petId: item.petId,
        quantity: item.quantity,
        status: item.status,
        minimum,
      });
    }
  }
  const unlisted = thresholds.filter((row) => !listed.has(row.petId));
  return { low: low.sort(byPetId), checked, unlisted };
}

/** The thresholds file's rows, read and checked whole before anything is fetched. */
async function readThresholdsOption(
  path: string,
  context: CommandContext,
): Promise<ThresholdRow[]> {
  const { readThresholds } = await import("../../apply/thresholds.js");
  return readThresholds(path, context.input);
}

/**
 * Checks the options and the thresholds file, fetches the inventory once (GET /inventory),
 * prints the low entries, and throws LowStockError (exit 9) after them when there are any.
 */
export async function runInventoryLow(
  options: InventoryLowOptions,
  context: CommandContext,
): Promise<void> {
  if (options.below === undefined && options.thresholds === undefined) {
    throw new UsageError(
      "say what is low: give --below N, --thresholds FILE, or both",
      "for example: petstore inventory low --below 3",
    );
  }
  const format = chooseFormat(options, context.io);
  const name = options.thresholds === "-" ? "stdin" : (options.thresholds ?? "");
  const thresholds =
    options.thresholds === undefined ? [] : await readThresholdsOption(options.thresholds, context);
  if (options.thresholds !== undefined && options.below === undefined && thresholds.length === 0) {
    context.io.err.write(noThresholdsWarning(name));
  }
  const client = await context.apiClient();
  const items = await client.listInventory();
  const found = findLowStock(items, thresholds, options);
  if (found.unlisted.length > 0) context.io.err.write(unlistedPetsWarning(name, found.unlisted));
  writeLowStock(found.low, found.checked, format, context.io);
  if (found.low.length > 0) throw new LowStockError(found.low.length);
}
