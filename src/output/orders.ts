/** Printing store orders. */
import type { Order } from "../api/types.js";
import { localTime } from "../text/local-time.js";
import { printable } from "../text/printable.js";
import { tsvLine } from "./delimited.js";
import type { OutputFormat } from "./format.js";
import type { IoStreams } from "./io-streams.js";
import { toJson } from "./json.js";
import { styleStatus } from "./status-style.js";
import { renderTable } from "./table.js";

export const ORDER_COLUMNS = ["id", "petId", "quantity", "shipDate", "status", "complete"] as const;

function fields(order: Order) {
  return [
    order.id,
    order.petId,
    order.quantity,
    printable(order.shipDate),
    order.status,
    order.complete,
  ] as const;
}

/** Prints orders: a table with a count line, tab-separated lines, or a JSON array. */
export function writeOrders(
  orders: readonly Order[],
  format: Exclude<OutputFormat, "csv">,
  io: IoStreams,
): void {
  switch (format) {
    case "json":
      io.out.write(toJson(orders));
      return;
    case "tsv":
      io.out.write(orders.map((order) => tsvLine(fields(order))).join(""));
      return;
    case "table": {
      const rows = orders.map((order) => [
        order.id.toString(),
        order.petId.toString(),
        String(order.quantity),
        // In the machine's time zone, as history's table shows times; ISO when piped.
        localTime(order.shipDate),
        styleStatus(order.status, io.style),
        order.complete ? "yes" : "no",
      ]);
      const count = orders.length === 1 ? "1 order" : `${orders.length} orders`;
      io.out.write(
        renderTable({ head: ORDER_COLUMNS, rows, rightAligned: [0, 1, 2] }, io) +
          `${io.style.dim(count)}\n`,
      );
      return;
    }
  }
}
