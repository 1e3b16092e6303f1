/** Printing what `inventory low` found: the entries below their minimum, and its warnings. */
import type { InventoryItem } from "../api/types.js";
import { csvLine, tsvLine } from "./delimited.js";
import type { OutputFormat } from "./format.js";
import type { IoStreams } from "./io-streams.js";
import { toJson } from "./json.js";
import { countOf } from "../text/plural.js";
import { styleStatus } from "./status-style.js";
import { renderTable } from "./table.js";

/** An entry below its minimum: the entry as `list` prints it, and the minimum it is under. */
export interface LowStockEntry extends InventoryItem {
  /** The pet's row in the thresholds file, else the `--below` number. */
  minimum: number;
}

/** Column order of CSV and TSV: `list`'s columns, then the minimum. */
export const LOW_STOCK_COLUMNS = ["petId", "quantity", "status", "minimum"] as const;

/** How many pets a warning names before saying how many more there are. */
const MAX_NAMED_PETS = 10;

function fields(entry: LowStockEntry) {
  return [entry.petId, entry.quantity, entry.status, entry.minimum] as const;
}

function table(entries: readonly LowStockEntry[], io: IoStreams): string {
  return renderTable(
    {
      head: ["petId", "quantity", "status", "minimum", "short"],
      rows: entries.map((entry) => [
        entry.petId.toString(),
        String(entry.quantity),
        styleStatus(entry.status, io.style),
        String(entry.minimum),
        String(entry.minimum - entry.quantity),
      ]),
      rightAligned: [0, 1, 3, 4],
    },
    io,
  );
}

/** The line under the table: how many of the pets checked are low. */
function summary(low: number, checked: number): string {
  return `${low} of ${countOf(checked, "pet")} checked ${low === 1 ? "is" : "are"} low\n`;
}

/**
 * Prints the low entries (sorted by the caller): a table with each one's minimum and how many
 * it is short, and a summary line; TSV; a JSON array of `{petId, quantity, status, minimum}`;
 * or CSV with a header. On a terminal, nothing low is said in a line; otherwise it is no
 * output (TSV), `[]` or the CSV header alone. `checked` counts the pets that had a minimum.
 */
export function writeLowStock(
  entries: readonly LowStockEntry[],
  checked: number,
  format: OutputFormat,
  io: IoStreams,
): void {
  switch (format) {
    case "json":
      io.out.write(toJson(entries));
      return;
    case "csv":
      io.out.write(
        csvLine(LOW_STOCK_COLUMNS) + entries.map((entry) => csvLine(fields(entry))).join(""),
      );
      return;
    case "tsv":
      io.out.write(entries.map((entry) => tsvLine(fields(entry))).join(""));
      return;
    case "table":
      if (entries.length === 0) {
        io.out.write(`nothing is low (${countOf(checked, "pet")} checked)\n`);
        return;
      }
      // Dimmed without its line end: chalk would dim the empty text after it too.
      io.out.write(
        `${table(entries, io)}${io.style.dim(summary(entries.length, checked).trimEnd())}\n`,
      );
      return;
  }
}

/**
 * The warning for the pets of a thresholds file that the inventory does not list (so they
 * were not checked), each with its line: `warning: 2 pets in minimums.csv are not in the
 * inventory, so not checked: 99 (line 4), 100 (line 5)`.
 */
export function unlistedPetsWarning(
  name: string,
  pets: readonly { petId: bigint; location: { line: number } }[],
): string {
  const named = pets
    .slice(0, MAX_NAMED_PETS)
    .map((pet) => `${pet.petId} (line ${pet.location.line})`)
    .join(", ");
  const more = pets.length > MAX_NAMED_PETS ? `, and ${pets.length - MAX_NAMED_PETS} more` : "";
  const are = pets.length === 1 ? "is" : "are";
  return `warning: ${countOf(pets.length, "pet")} in ${name} ${are} not in the inventory, so not checked: ${named}${more}\n`;
}

/** The warning for a thresholds file without rows when no `--below` is given. */
export function noThresholdsWarning(name: string): string {
  return `warning: ${name} lists no pets, so nothing can be low\n`;
}
