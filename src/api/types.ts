/** Shapes exchanged over the wire, shared by the client and the server. */

/** The allowed values of a pet's status. */
export const PET_STATUSES = ["available", "pending", "sold"] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** One stock entry: `petId` is int64, so it is a bigint end to end. */
export interface InventoryItem {
  petId: bigint;
  quantity: number;
  status: PetStatus;
}

/**
 * One change of an entry's quantity, as `GET /inventory/{petId}/history` lists it: when (RFC
 * 3339 UTC), the quantities before (null for a seed) and after, the name of the key that made
 * it, the request's id, the reason given (`X-Change-Reason`) and a batch change's `ref`.
 */
export interface InventoryChange {
  /** The record's place in the change feed; absent from a server without one. */
  seq?: bigint;
  at: string;
  petId: bigint;
  previous: number | null;
  quantity: number;
  keyName: string | null;
  requestId: string | null;
  reason: string | null;
  /** The business reference of a batch change (`ref`); null otherwise, or from a server without batches. */
  ref: string | null;
}

/** One record of the change feed: a history record with its place in commit order. */
export interface FeedChange extends InventoryChange {
  /** Unique in the store, increasing in the order the changes committed (int64). */
  seq: bigint;
}

/**
 * `GET /inventory/changes`: the records after the cursor in `seq` order; `next` is the last
 * `seq` listed, or the cursor itself when none is (the cursor of the next request).
 */
export interface ChangeFeedPage {
  changes: FeedChange[];
  next: bigint;
  /** An empty page's `Inventory-Seq`: the store's latest change, when the server says. */
  latestSeq?: bigint | undefined;
}

/** Body of `PATCH /inventory/{petId}`. */
export interface InventoryUpdate {
  quantity: number;
}

/** Body of every error response. */
export interface ApiErrorBody {
  code: string;
  message: string;
  status: number;
}

export interface Category {
  id: bigint;
  name: string;
}

export interface Tag {
  id: bigint;
  name: string;
}

/** A pet record, in the classic Swagger Petstore shape. */
export interface Pet {
  id: bigint;
  name: string;
  status: PetStatus;
  category?: Category;
  photoUrls: string[];
  tags: Tag[];
}

export const ORDER_STATUSES = ["placed", "approved", "delivered"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** A store order, in the classic Swagger Petstore shape. */
export interface Order {
  id: bigint;
  petId: bigint;
  quantity: number;
  shipDate: string;
  status: OrderStatus;
  complete: boolean;
}

/**
 * One change of `POST /inventory/batch`: a set (`quantity`) or a relative change (`delta`, a
 * non-zero integer), applied only when the entry holds `ifQuantity` (when given), and kept
 * with its business reference `ref` (when given): a `(petId, ref)` applies once, ever.
 */
export type BatchChange = { petId: bigint; ref?: string } & (
  | { quantity: number; delta?: undefined; count?: undefined; ifQuantity?: number }
  | { delta: number; quantity?: undefined; count?: undefined; ifQuantity?: number }
  | CountFields
);

/**
 * A count: the pet held `count` as of the feed seq `asOf` (when its shelf was counted); its
 * quantity becomes `count` plus the net of its changes committed after `asOf`.
 */
export interface CountFields {
  count: number;
  asOf: bigint;
  quantity?: undefined;
  delta?: undefined;
  ifQuantity?: undefined;
}

/** Body of `POST /inventory/batch`. */
export interface BatchRequest {
  /** All changes applied or none (409 `batch_rejected` when any fails). */
  atomic: boolean;
  /** Evaluated exactly as it would be applied; nothing written. */
  dryRun: boolean;
  changes: BatchChange[];
}

/** What became of one change of a batch. */
export const BATCH_OUTCOMES = [
  "changed",
  "unchanged",
  "duplicate",
  "conflict",
  "not_found",
  "below_zero",
  "too_large",
] as const;
export type BatchOutcome = (typeof BATCH_OUTCOMES)[number];

/** The outcomes that count as failed (the others are `changed` or count as unchanged). */
export const FAILED_BATCH_OUTCOMES: readonly BatchOutcome[] = [
  "conflict",
  "not_found",
  "below_zero",
  "too_large",
];

/** Whether an outcome is a failure: the change was not applied and it should have been. */
export function isFailedOutcome(outcome: BatchOutcome): boolean {
  return FAILED_BATCH_OUTCOMES.includes(outcome);
}

/**
 * One change's result, in request order: the entry's quantity before the change and after it
 * (now, when it was not applied) and the pet's status; all three null for `not_found`.
 */
export interface BatchChangeResult {
  petId: bigint;
  outcome: BatchOutcome;
  previous: number | null;
  quantity: number | null;
  status: PetStatus | null;
  /** A count's: the quantity as of its `asOf` (null for `not_found`). */
  book?: number | null | undefined;
  /** A count's: the net of the pet's changes after its `asOf`. */
  since?: number | null | undefined;
  /** A count's: the count itself. */
  counted?: number | undefined;
  /** A count's: counted − book. */
  variance?: number | null | undefined;
}

/** The 200 answer of `POST /inventory/batch` (`duplicate` counts as unchanged). */
export interface BatchResponse {
  changed: number;
  unchanged: number;
  failed: number;
  results: BatchChangeResult[];
}
