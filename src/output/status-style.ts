/** Colours of pet and order statuses in human output. */
import type { ChalkInstance } from "chalk";
import type { OrderStatus, PetStatus } from "../api/types.js";

/** Colours a status: green for what can be sold or is done, yellow for in between, red for gone. */
export function styleStatus(status: PetStatus | OrderStatus, style: ChalkInstance): string {
  switch (status) {
    case "available":
    case "delivered":
      return style.green(status);
    case "pending":
    case "placed":
    case "approved":
      return style.yellow(status);
    case "sold":
      return style.red(status);
  }
}
