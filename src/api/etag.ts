/**
 * The entity tag of an inventory entry: its quantity as a quoted decimal (`"7"`), so a client
 * that listed the inventory can write conditionally (`If-Match: "7"`) without another read.
 */
export function entityTagOf(quantity: number): string {
  return `"${quantity}"`;
}

/** Response header: `true` on a PATCH answer replayed for a repeated `Idempotency-Key`. */
export const IDEMPOTENT_REPLAYED_HEADER = "idempotent-replayed";
