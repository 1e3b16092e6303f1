/** Printing an entry's history (`inventory history`). */
import { localTime } from "../text/local-time.js";
import { printable } from "../text/printable.js";
import type { InventoryChange } from "../api/types.js";
import { tsvLine } from "./delimited.js";
import type { OutputFormat } from "./format.js";
import type { IoStreams } from "./io-streams.js";
import { toJson } from "./json.js";
import { renderTable } from "./table.js";

/** Column order of the tab-separated lines: the record's field order. */
export const HISTORY_COLUMNS = [
  "at",
  "petId",
  "previous",
  "quantity",
  "keyName",
  "requestId",
  "reason",
  "ref",
] as const;

/** "+3", "-2", "±0"; empty for a seed's first record. */
export function quantityChange(record: InventoryChange): string {
  if (record.previous === null) return "";
  const delta = record.quantity - record.previous;
  return delta > 0 ? `+${delta}` : delta < 0 ? String(delta) : "±0";
}

/** A change record's cells as a person reads them: local time, the change's sign, no request id. */
export function changeCells(record: InventoryChange) {
  return {
    when: localTime(record.at),
    previous: record.previous === null ? "" : String(record.previous),
    quantity: String(record.quantity),
    change: quantityChange(record),
    key: printable(record.keyName ?? ""),
    reason: printable(record.reason ?? ""),
    ref: printable(record.ref ?? ""),
  };
}

/**
 * The boxed table of change records, for one pet's history or (`feed`: each record's seq and
 * petId too) for the change feed; a `ref` column only when a record has one (a batch's change).
 */
export function changesTable(
  records: readonly InventoryChange[],
  io: IoStreams,
  { feed }: { feed: boolean },
): string {
  const withRef = records.some((record) => record.ref !== null);
  const ref = withRef ? ["ref"] : [];
  // key, reason and ref: free text, narrowed to fit the terminal.
  const key = feed ? 6 : 4;
  return renderTable(
    {
      head: [
        ...(feed ? ["seq", "when", "petId"] : ["when"]),
        "previous",
        "quantity",
        "change",
        "key",
        "reason",
        ...ref,
      ],
      rows: records.map((record) => {
        const cells = changeCells(record);
        return [
          ...(feed
            ? [record.seq?.toString() ?? "", cells.when, record.petId.toString()]
            : [cells.when]),
          cells.previous,
          cells.quantity,
          cells.change,
          cells.key,
          cells.reason,
          ...(withRef ? [cells.ref] : []),
        ];
      }),
      rightAligned: feed ? [0, 2, 3, 4, 5] : [1, 2, 3],
      wrappable: [key, key + 1, ...(withRef ? [key + 2] : [])],
    },
    io,
  );
}

/**
 * Prints the records, newest first: a JSON array; one tab-separated line each, ISO times and
 * empty fields for nulls (piped); or a table with local times and a note when there is none.
 */
export function writeInventoryHistory(
  petId: bigint,
  records: readonly InventoryChange[],
  format: Exclude<OutputFormat, "csv">,
  io: IoStreams,
): void {
  switch (format) {
    case "json":
      io.out.write(toJson(records));
      return;
    case "tsv":
      io.out.write(
        records
          .map((record) =>
            tsvLine(HISTORY_COLUMNS.map((column) => printable(String(record[column] ?? "")))),
          )
          .join(""),
      );
      return;
    case "table":
      if (records.length === 0) {
        io.out.write(
          `no changes of pet ${petId} were kept (changes made before history was kept are not listed)\n`,
        );
        return;
      }
      io.out.write(changesTable(records, io, { feed: false }));
      return;
  }
}
