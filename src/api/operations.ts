/** The spec's operations the CLI calls, by their operationId in the OpenAPI document. */
export const OPERATION_IDS = [
  "listInventory",
  "getInventoryItem",
  "updateInventory",
  "getInventoryHistory",
  "getPetById",
  "listOrders",
] as const;
export type OperationId = (typeof OPERATION_IDS)[number];

/** Operations whose path names one pet (`{petId}`): a 404 there can mean that pet does not exist. */
export const PET_OPERATIONS: ReadonlySet<OperationId> = new Set([
  "getInventoryItem",
  "updateInventory",
  "getInventoryHistory",
  "getPetById",
]);
