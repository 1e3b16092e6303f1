/** The plan of an apply: each desired count against the current stock, in file order. */
import type { InventoryItem } from "../api/types.js";
import type { CountRow } from "./counts.js";

/** One row of the plan; `previous` is undefined when the pet is not in the inventory. */
export interface PlannedRow {
  petId: bigint;
  previous: number | undefined;
  desired: number;
  /** True when a PATCH is needed (different quantity, or a pet the inventory does not list). */
  change: boolean;
}

export interface ApplyPlan {
  rows: PlannedRow[];
  /** How many rows need a PATCH. */
  changes: number;
}

/**
 * Diffs desired counts against the inventory (its entries, or each pet's quantity by petId).
 * A pet missing from the inventory is still planned as a change: the server decides (and
 * answers 404, or `not_found`, if it really has no such pet).
 */
export function planApply(
  desired: readonly CountRow[],
  inventory: readonly InventoryItem[] | ReadonlyMap<bigint, number>,
): ApplyPlan {
  let current: ReadonlyMap<bigint, number>;
  if (inventory instanceof Map) {
    current = inventory as ReadonlyMap<bigint, number>;
  } else {
    const quantities = new Map<bigint, number>();
    for (const item of inventory as readonly InventoryItem[]) {
      quantities.set(item.petId, item.quantity);
    }
    current = quantities;
  }
  let changes = 0;
  const rows = desired.map((row) => {
    const previous = current.get(row.petId);
    const change = previous !== row.quantity;
    if (change) changes += 1;
    return { petId: row.petId, previous, desired: row.quantity, change };
  });
  return { rows, changes };
}
