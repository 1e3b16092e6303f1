/** The spec's operations the CLI calls, by their operationId in the OpenAPI document. */
export type OperationId =
  | "listInventory"
  | "getInventoryItem"
  | "updateInventory"
  | "applyInventoryBatch"
  | "getInventoryHistory"
  | "listInventoryChanges"
  | "getPetById"
  | "listOrders";

/** Operations whose path names one pet (`{petId}`): a 404 there can mean that pet does not exist. */
export const PET_OPERATIONS: ReadonlySet<OperationId> = new Set([
  "getInventoryItem",
  "updateInventory",
  "getInventoryHistory",
  "getPetById",
]);
