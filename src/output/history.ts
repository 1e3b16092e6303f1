/** Printing an entry's history (`inventory history`). */
import { localTime } from "../text/local-time.js";
import { printable } from "../text/printable.js";
import { wrapped } from "../text/wrap.js";
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
 * A change as a few lines for a terminal too narrow for its table or aligned line: its seq and
 * pet (`feed`), when, the quantity before and after, the change and the key that made it; then
 * its ref and its reason, each on lines of their own, wrapped under it.
 *
 *     9  2026-11-27 22:02:10  pet 1  3 → 1  -2  by till-3
 *         ref till-3/2026-11-27/receipt-000123
 *         sold two to the family who came in on Saturday morning
 */
export function changeLines(
  record: InventoryChange,
  { feed }: { feed: boolean },
  width: number,
  arrow: string,
): string {
  const cells = changeCells(record);
  const moved =
    cells.previous === ""
      ? `${arrow} ${cells.quantity}`
      : `${cells.previous} ${arrow} ${cells.quantity}  ${cells.change}`;
  const first = [
    ...(feed ? [record.seq?.toString() ?? "", cells.when, `pet ${record.petId}`] : [cells.when]),
    moved,
    ...(cells.key === "" ? [] : [`by ${cells.key}`]),
  ].join("  ");
  const below = [cells.ref === "" ? "" : `ref ${cells.ref}`, cells.reason].filter(
    (text) => text !== "",
  );
  return (
    hanging(first, "", width) + below.map((text) => hanging(text, CHANGE_INDENT, width)).join("")
  );
}

/** Where a change's lines below its first start (changeLines). */
const CHANGE_INDENT = "    ";

/** `text` wrapped to `width`, its first line after `indent`, the others under CHANGE_INDENT. */
function hanging(text: string, indent: string, width: number): string {
  const room = (lead: string) => Math.max(1, width - lead.length);
  const lines = wrapped(text, room(indent), room(CHANGE_INDENT)).split("\n");
  return lines.map((line, index) => `${index === 0 ? indent : CHANGE_INDENT}${line}\n`).join("");
}

/**
 * The boxed table of change records, for one pet's history or (`feed`: each record's seq and
 * petId too) for the change feed; a `ref` column only when a record has one (a batch's change).
 * On a terminal too narrow for it, each change as its lines (changeLines).
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
    (width) =>
      records.map((record) => changeLines(record, { feed }, width, io.symbols.arrow)).join(""),
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
