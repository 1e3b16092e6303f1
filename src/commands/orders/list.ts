/** `petstore orders list`: the store's orders. */
import { Command } from "commander";
import { chooseRecordFormat } from "../../output/format.js";
import { writeOrders } from "../../output/orders.js";
import type { CommandContext, Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

export interface OrdersListOptions {
  json?: boolean | undefined;
}

/** Fetches the orders and prints them in the server's order. */
export async function runOrdersList(
  options: OrdersListOptions,
  context: CommandContext,
): Promise<void> {
  const format = chooseRecordFormat(options, context.io);
  const client = await context.apiClient();
  const orders = await client.listOrders();
  writeOrders(orders, format, context.io);
}

/** Defines `orders list`. */
export function ordersListCommand(factory: Factory): Command {
  return new Command("list")
    .description("list the store's orders (GET /store/orders)")
    .option("--json", "print a JSON array of orders")
    .addHelpText(
      "after",
      `
Piped: one tab-separated line per order (id, petId, quantity, shipDate, status, complete).

Examples:
  petstore orders list
  petstore orders list --json | jq '[.[] | select(.complete | not)] | length'`,
    )
    .action(async (options: OrdersListOptions, command: Command) => {
      await runOrdersList(options, factory.context(readGlobalOptions(command)));
    });
}
