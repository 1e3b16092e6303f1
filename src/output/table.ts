/** Boxed tables for people at a terminal (cli-table3); colour is applied by the caller. */
import Table from "cli-table3";
import type { ChalkInstance } from "chalk";

export interface TableSpec {
  head: readonly string[];
  rows: readonly (readonly string[])[];
  /** Columns to right-align (numbers). */
  rightAligned?: readonly number[];
}

/** Renders a table; the header is bold when colour is on, borders stay plain. */
export function renderTable(spec: TableSpec, style: ChalkInstance): string {
  const right = new Set(spec.rightAligned ?? []);
  const table = new Table({
    head: spec.head.map((title) => style.bold(title)),
    colAligns: spec.head.map((_, index) => (right.has(index) ? "right" : "left")),
    // Styling off: cli-table3 would otherwise colour by its own terminal detection.
    style: { head: [], border: [], compact: true },
  });
  for (const row of spec.rows) table.push([...row]);
  return `${table.toString()}\n`;
}
