/** The storage behind the routes: an interface, so a second store is a new file, not a change to routes. */
import type { InventoryItem, Order, Pet } from "../../api/types.js";

/** A pet as loaded from a seed file or the demo set, with its stock count. */
export interface SeedPet extends Pet {
  quantity: number;
}

/** How long an idempotency record answers for its key: 24 hours, then it is purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * What a write requires of the entry's current state (an `If-Match` header, parsed):
 * `exists` matches any existing entry (`*`); `quantity_in` matches when the entry holds one of
 * these quantities (an empty list matches nothing). The check and the write are one atomic
 * step: no other write of the entry comes between them.
 */
export type UpdateCondition =
  { kind: "exists" } | { kind: "quantity_in"; quantities: readonly number[] };

/** What a write did, and what an idempotency record keeps the answer to. */
export type WriteOutcome =
  | { kind: "updated"; item: InventoryItem }
  | { kind: "not_found" }
  | { kind: "precondition_failed"; current: InventoryItem };

/** The answer to a write as sent and as kept for replays: status, body text, ETag. */
export interface StoredResponse {
  status: number;
  body: string;
  etag: string | null;
}

/**
 * An `Idempotency-Key` claim on a write. The store keeps `(owner, key)` with the fingerprint
 * and the rendered answer, in the same transaction as the write, for IDEMPOTENCY_TTL_MS.
 */
export interface IdempotencyClaim {
  /** Whose key it is: a digest of the caller's API key (never the key itself). */
  owner: string;
  /** The `Idempotency-Key` header. */
  key: string;
  /** A digest of the request (petId, body, If-Match): the same key with another is refused. */
  fingerprint: string;
  /** Wall-clock time of the request in Unix milliseconds; records older by the TTL have expired. */
  at: number;
  /** Renders the outcome as the answer kept for replays (called inside the transaction). */
  render(outcome: WriteOutcome): StoredResponse;
}

/** Optional parts of a write: a precondition and an idempotency claim. */
export interface UpdateOptions {
  condition?: UpdateCondition;
  idempotency?: IdempotencyClaim;
}

/**
 * What a write of one entry came to. Expected outcomes are values, not exceptions, so a
 * route maps each to its answer.
 * `precondition_failed`: the condition did not hold; nothing written; `current` is the entry.
 * `replayed`: the claim's key was used before for the same request: its kept answer, nothing
 * written. `key_reused`: the key was used before for a different request; nothing written.
 * `busy`: another process held the database's write lock for longer than the store waits;
 * nothing was written, and the same write may succeed later.
 */
export type UpdateResult =
  | WriteOutcome
  | { kind: "replayed"; response: StoredResponse }
  | { kind: "key_reused" }
  | { kind: "busy" };

/**
 * Persistent storage of pets, their stock and store orders. A read or a seed that cannot get
 * past another process's lock within the store's lock time-out rejects with StoreBusyError.
 */
export interface Store {
  /** All stock entries, ordered by `petId`. */
  listInventory(): Promise<InventoryItem[]>;
  /** One stock entry; undefined when no pet has this id. */
  getInventoryItem(petId: bigint): Promise<InventoryItem | undefined>;
  /**
   * Sets the stock of one pet durably; `not_found` (and nothing written) when no pet has this
   * id, whatever the condition; `precondition_failed` when `options.condition` does not hold;
   * with `options.idempotency`, first looks up the key (`replayed` / `key_reused`) and keeps
   * the outcome with the write. `busy` (and nothing written) when the database stayed locked
   * by another process for the store's lock time-out. Waiting for a lock never blocks the
   * event loop. Writes that run together are checked and applied one after the other, each
   * seeing the writes before it.
   */
  updateQuantity(petId: bigint, quantity: number, options?: UpdateOptions): Promise<UpdateResult>;
  /**
   * Deletes at most `limit` idempotency records created before `before` (Unix ms); resolves
   * how many it deleted, so a caller can purge in small batches.
   */
  purgeIdempotencyRecords(before: number, limit: number): Promise<number>;
  /** One pet record; undefined when no pet has this id. */
  getPet(petId: bigint): Promise<Pet | undefined>;
  /** All store orders, ordered by id. */
  listOrders(): Promise<Order[]>;
  /**
   * A token that changes whenever the inventory may have changed, so a serialized
   * inventory can be cached between writes. This store's own writes change it at once;
   * a store may notice another process's writes a little later (the SQLite store within
   * a quarter of a second).
   */
  revision(): Promise<string>;
  /**
   * Resolves when the database answers; rejects (StoreUnavailableError) when it cannot be
   * reached, so `/healthz` can tell a load balancer to send requests elsewhere.
   */
  ping(): Promise<void>;
  /** Loads pets (and orders) in one transaction when the store holds no pet; returns whether it did. */
  seedIfEmpty(pets: readonly SeedPet[], orders?: readonly Order[]): Promise<boolean>;
  /** Releases the underlying resources. */
  close(): Promise<void>;
}
