/** Inventory rows as the PostgreSQL store reads them (int8 as BigInt, see connection.ts). */
import type { InventoryItem, PetStatus } from "../../../api/types.js";

/** A `pets` row's stock columns. */
export interface InventoryRow {
  id: bigint;
  quantity: number;
  status: PetStatus;
}

/** The InventoryItem a row holds. */
export const toItem = (row: InventoryRow): InventoryItem => ({
  petId: row.id,
  quantity: row.quantity,
  status: row.status,
});
