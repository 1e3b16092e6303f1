/** The storage behind the routes: an interface, so a second store is a new file, not a change to routes. */
import type { InventoryItem, Order, Pet } from "../../api/types.js";

/** A pet as loaded from a seed file or the demo set, with its stock count. */
export interface SeedPet extends Pet {
  quantity: number;
}

/**
 * What a write of one entry came to. Expected outcomes are values, not exceptions, so a
 * route maps each to its answer; later kinds (a failed precondition) join this union.
 * `busy`: another process held the database's write lock for longer than the store waits;
 * nothing was written, and the same write may succeed later.
 */
export type UpdateResult =
  { kind: "updated"; item: InventoryItem } | { kind: "not_found" } | { kind: "busy" };

/**
 * Persistent storage of pets, their stock and store orders. A read or a seed that cannot get
 * past another process's lock within the store's lock time-out rejects with StoreBusyError.
 */
export interface Store {
  /** All stock entries, ordered by `petId`. */
  listInventory(): Promise<InventoryItem[]>;
  /**
   * Sets the stock of one pet durably; `not_found` (and nothing written) when no pet has this
   * id; `busy` (and nothing written) when the database stayed locked by another process for
   * the store's lock time-out. Waiting for a lock never blocks the event loop.
   */
  updateQuantity(petId: bigint, quantity: number): Promise<UpdateResult>;
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
  /** Loads pets (and orders) in one transaction when the store holds no pet; returns whether it did. */
  seedIfEmpty(pets: readonly SeedPet[], orders?: readonly Order[]): Promise<boolean>;
  /** Releases the underlying resources. */
  close(): Promise<void>;
}
