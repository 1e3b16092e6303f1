/** Printing inventory entries in every format. */
import { PET_STATUSES, type InventoryItem } from "../api/types.js";
import { csvLine, tsvLine } from "./delimited.js";
import type { OutputFormat } from "./format.js";
import type { IoStreams } from "./io-streams.js";
import { toJson } from "./json.js";
import { styleStatus } from "./status-style.js";
import { renderTable } from "./table.js";

/** Column order of CSV, TSV and tables: the spec's field order. */
export const INVENTORY_COLUMNS = ["petId", "quantity", "status"] as const;

function fields(item: InventoryItem) {
  return [item.petId, item.quantity, item.status] as const;
}

function table(items: readonly InventoryItem[], io: IoStreams): string {
  return renderTable(
    {
      head: INVENTORY_COLUMNS,
      rows: items.map((item) => [
        item.petId.toString(),
        String(item.quantity),
        styleStatus(item.status, io.style),
      ]),
      rightAligned: [0, 1],
    },
    io,
  );
}

/** The line under the table: how many pets, how many animals in stock, split by status. */
export function inventoryTotals(items: readonly InventoryItem[]): string {
  const byStatus = new Map<string, bigint>(PET_STATUSES.map((status) => [status, 0n]));
  let total = 0n;
  for (const item of items) {
    total += BigInt(item.quantity);
    byStatus.set(item.status, (byStatus.get(item.status) ?? 0n) + BigInt(item.quantity));
  }
  const split = PET_STATUSES.map((status) => `${status} ${byStatus.get(status) ?? 0n}`).join(", ");
  const pets = items.length === 1 ? "1 pet" : `${items.length} pets`;
  return `${pets}, ${total} in stock (${split})\n`;
}

/** Prints a list of entries: table + totals, TSV, JSON array, or CSV with a header. */
export function writeInventoryList(
  items: readonly InventoryItem[],
  format: OutputFormat,
  io: IoStreams,
): void {
  switch (format) {
    case "json":
      io.out.write(toJson(items));
      return;
    case "csv":
      io.out.write(
        csvLine(INVENTORY_COLUMNS) + items.map((item) => csvLine(fields(item))).join(""),
      );
      return;
    case "tsv":
      io.out.write(items.map((item) => tsvLine(fields(item))).join(""));
      return;
    case "table":
      // Dimmed without its line end: chalk would open and close the style again after it.
      io.out.write(`${table(items, io)}${io.style.dim(inventoryTotals(items).trimEnd())}\n`);
      return;
  }
}

/**
 * Prints one entry (`inventory get`, `set`, `adjust`): a JSON object, one line, CSV with a
 * header, or a one-row table without totals.
 */
export function writeInventoryItem(item: InventoryItem, format: OutputFormat, io: IoStreams): void {
  switch (format) {
    case "json":
      io.out.write(toJson(item));
      return;
    case "csv":
      io.out.write(csvLine(INVENTORY_COLUMNS) + csvLine(fields(item)));
      return;
    case "tsv":
      io.out.write(tsvLine(fields(item)));
      return;
    case "table":
      io.out.write(table([item], io));
      return;
  }
}
