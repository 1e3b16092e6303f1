/** The storage behind the routes: an interface, so a second store is a new file, not a change to routes. */
import { MAX_QUANTITY, isValidQuantity } from "../../api/limits.js";
import type { BatchChange, BatchChangeResult, InventoryItem, Order, Pet } from "../../api/types.js";

/** A pet as loaded from a seed file or the demo set, with its stock count. */
export interface SeedPet extends Pet {
  quantity: number;
}

/** How long an idempotency record answers for its key: 24 hours, then it is purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a write waits by default for a lock another process or instance holds before it
 * answers `busy` (503), and a read before it rejects with StoreBusyError.
 */
export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;

/**
 * Refuses a database whose schema version is newer than the `supported` one this code knows
 * (a newer petstore migrated it): both engines' migrate() call it before migrating.
 */
export function refuseNewerSchema(current: number, supported: number): void {
  if (current > supported) {
    throw new Error(
      `database schema version ${current} is newer than this petstore supports (${supported})`,
    );
  }
}

/**
 * The quantity a store may write: the one check the routes' schema applies too. A store
 * refuses anything else before it joins a group commit, so it fails that update alone.
 */
export function checkQuantity(quantity: number): void {
  if (!isValidQuantity(quantity)) {
    throw new RangeError(`quantity ${quantity} is out of range (0 to ${MAX_QUANTITY})`);
  }
}

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
  | { kind: "updated"; item: InventoryItem; seq?: bigint | undefined }
  | { kind: "not_found" }
  | { kind: "precondition_failed"; current: InventoryItem; seq?: bigint | undefined };

/** The answer to a write as sent and as kept for replays: status, body text, ETag. */
export interface StoredResponse {
  status: number;
  body: string;
  etag: string | null;
}

/**
 * An answer kept for an Idempotency-Key, given again for the same request, nothing written:
 * `seq` is the seq it held as of when first given (its Inventory-Seq), null for a record kept
 * before records kept one (schema version 13).
 */
export interface Replayed {
  kind: "replayed";
  response: StoredResponse;
  seq: bigint | null;
}

/**
 * An `Idempotency-Key` claim on a write. The store keeps `(owner, key)` with the fingerprint
 * and the rendered answer, in the same transaction as the write, for IDEMPOTENCY_TTL_MS.
 */
export interface IdempotencyClaim<Outcome = WriteOutcome> {
  /** Whose key it is: a digest of the caller's API key (never the key itself). */
  owner: string;
  /** The `Idempotency-Key` header. */
  key: string;
  /** A digest of the request (petId, body, If-Match): the same key with another is refused. */
  fingerprint: string;
  /** Wall-clock time of the request in Unix milliseconds; records older by the TTL have expired. */
  at: number;
  /** Renders the outcome as the answer kept for replays (called inside the transaction). */
  render(outcome: Outcome): StoredResponse;
}

/**
 * Who made a change, when and why: what its history record keeps besides the quantities.
 * Every field but `at` may be unknown (null): a seed has no key and no request.
 */
export interface ChangeAuthor {
  /** Wall-clock time of the change in Unix milliseconds. */
  at: number;
  /** The name of the API key that made it (never the key). */
  keyName: string | null;
  /** The id of the request, as the server logged it. */
  requestId: string | null;
  /** Why, in the caller's words (`X-Change-Reason`). */
  reason: string | null;
}

/** The author of a change nobody named (a store-level write): its time alone. */
export function unknownAuthor(): ChangeAuthor {
  return { at: Date.now(), keyName: null, requestId: null, reason: null };
}

/** Who made a write: its `author`, or for a write nobody named, its time alone. */
export function authorOf(options: UpdateOptions): ChangeAuthor {
  return options.author ?? unknownAuthor();
}

/** One change of an entry's quantity, as its history keeps it. */
export interface ChangeRecord extends ChangeAuthor {
  petId: bigint;
  /** The quantity before; null when the change created the entry (a seed). */
  previous: number | null;
  quantity: number;
  /** The business reference of a batch change; null for any other change. */
  ref: string | null;
}

/** A history record with its place in the change feed. */
export interface FeedRecord extends ChangeRecord {
  /** Unique in the store, increasing in the order the changes committed. */
  seq: bigint;
}

/** Optional parts of a write: a precondition, an idempotency claim, and who makes it. */
export interface UpdateOptions {
  condition?: UpdateCondition;
  idempotency?: IdempotencyClaim;
  /** Kept in the change's history record; without it, the record has the time alone. */
  author?: ChangeAuthor;
}

/** A batch of changes (`POST /inventory/batch`), checked (api/batch.ts). */
export interface BatchWrite {
  changes: readonly BatchChange[];
  /** All changes are written or none: when one fails, nothing is written (`rejected`). */
  atomic: boolean;
  /** Evaluated exactly as it would be applied; nothing written, no idempotency record kept. */
  dryRun: boolean;
}

/**
 * What a batch came to: each change's result in request order; `rejected` when the batch
 * was atomic and a change failed, so nothing of it was written.
 */
export interface BatchEvaluation {
  kind: "evaluated";
  results: BatchChangeResult[];
  rejected: boolean;
  /**
   * The seq of the last change the answer reflects (Inventory-Seq): the batch's last change's,
   * else the latest the transaction read. Set by the store once committed.
   */
  seq?: bigint | undefined;
}

/** A snapshot of the whole inventory and the seq of the last change it reflects. */
export interface InventorySnapshot {
  items: InventoryItem[];
  seq: bigint;
}

/** Optional parts of a batch: an idempotency claim for the whole batch, and its author. */
export interface BatchOptions {
  idempotency?: IdempotencyClaim<BatchEvaluation>;
  /** Kept in the history record of every change the batch applies. */
  author?: ChangeAuthor;
}

/**
 * What a batch came to, as updateQuantity's results: `evaluated` (written unless rejected or
 * a dry run), or a replay, a reused key or `busy`, with nothing written.
 */
/**
 * A batch refused whole, nothing written, a 400 (`problem` names the change): a count as of a
 * seq later than any committed.
 */
export interface BatchRefusal {
  kind: "refused";
  problem: string;
}

export type BatchResult =
  BatchEvaluation | BatchRefusal | Replayed | { kind: "key_reused" } | { kind: "busy" };

/**
 * What a write of one entry came to. Expected outcomes are values, not exceptions, so a
 * route maps each to its answer.
 * `precondition_failed`: the condition did not hold; nothing written; `current` is the entry.
 * `replayed`: the claim's key was used before for the same request: its kept answer, nothing
 * written. `key_reused`: the key was used before for a different request; nothing written.
 * `busy`: another process held the database's write lock for longer than the store waits;
 * nothing was written, and the same write may succeed later.
 */
export type UpdateResult = WriteOutcome | Replayed | { kind: "key_reused" } | { kind: "busy" };

/**
 * Persistent storage of pets, their stock and store orders. A read or a seed that cannot get
 * past another process's lock within the store's lock time-out rejects with StoreBusyError.
 *
 * What the routes rely on: **a read that starts after a write was acknowledged, through this
 * store or any other store open on the same database (another process, another server
 * instance), sees that write.** Every read below (and `revision()`) asks the database, or
 * answers from what it asked after the call began; none answers from a cache another store's
 * writes could leave stale. The contract suite proves it on every engine with two stores on one
 * database.
 */
export interface Store {
  /**
   * All stock entries, ordered by `petId`, and the seq of the last change they reflect, read
   * in one snapshot: no change with a later seq is in it, none with an earlier one missing.
   */
  listInventory(): Promise<InventorySnapshot>;
  /** One stock entry and the seq it holds as of (one snapshot); undefined for no such pet. */
  getInventoryItem(petId: bigint): Promise<{ item: InventoryItem; seq: bigint } | undefined>;
  /**
   * Sets the stock of one pet durably (a quantity that is not an integer from 0 to
   * MAX_QUANTITY rejects with RangeError, failing that update alone); `not_found` (and nothing written) when no pet has this
   * id, whatever the condition; `precondition_failed` when `options.condition` does not hold;
   * with `options.idempotency`, first looks up the key (`replayed` / `key_reused`) and keeps
   * the outcome with the write. `busy` (and nothing written) when the database stayed locked
   * by another process for the store's lock time-out. Waiting for a lock never blocks the
   * event loop. Writes that run together are checked and applied one after the other, each
   * seeing the writes before it. An `updated` write appends a history record in its own
   * transaction; a replay, a reuse, a 404 or a 412 appends none.
   */
  updateQuantity(petId: bigint, quantity: number, options?: UpdateOptions): Promise<UpdateResult>;
  /**
   * Applies a batch of changes in one transaction, in order, each seeing the ones before it
   * (and the writes before it in its group commit), by the same rules as updateQuantity. A
   * change with a `ref` that an applied change of the same pet already carried (at any time)
   * is `duplicate`. An applied change appends a history record carrying its `ref`; an
   * `unchanged`, `duplicate` or failed one appends none. With `atomic`, a failed change
   * leaves the whole batch unwritten (`rejected`); with `dryRun` nothing is written at all.
   * `busy` as updateQuantity.
   */
  applyBatch(batch: BatchWrite, options?: BatchOptions): Promise<BatchResult>;
  /**
   * Deletes at most `limit` idempotency records created before `before` (Unix ms); resolves
   * how many it deleted, so a caller can purge in small batches.
   */
  purgeIdempotencyRecords(before: number, limit: number): Promise<number>;
  /**
   * The entry's latest `limit` history records, newest first; undefined when no pet has this
   * id (an entry from before history was kept may have none).
   */
  listChanges(petId: bigint, limit: number): Promise<FeedRecord[] | undefined>;
  /**
   * The change feed: at most `limit` history records with a `seq` above `after`, in `seq`
   * order. A record never commits with a `seq` below one a read has already seen: a reader
   * that asks again from the last `seq` it saw misses none, with any number of stores writing.
   */
  listFeed(after: bigint, limit: number): Promise<FeedRecord[]>;
  /** The seq of the latest change (0 with none): a feed cursor above it is not this store's. */
  latestSeq(): Promise<bigint>;
  /** One pet record; undefined when no pet has this id. */
  getPet(petId: bigint): Promise<Pet | undefined>;
  /** All store orders, ordered by id. */
  listOrders(): Promise<Order[]>;
  /**
   * A token that changes whenever the inventory may have changed, so a serialized inventory
   * can be cached between writes: it differs from the token of any call that ended before a
   * write (through any store on the database) was acknowledged.
   */
  revision(): Promise<string>;
  /**
   * Resolves when the database answers; rejects (StoreUnavailableError) when it cannot be
   * reached, so `/healthz` can tell a load balancer to send requests elsewhere.
   */
  ping(): Promise<void>;
  /**
   * Loads pets (and orders) in one transaction when the store holds no pet; returns whether it
   * did. Each pet's quantity gets its first history record, kept with `author`'s time, and
   * reason (key and request are null for a seed).
   */
  seedIfEmpty(
    pets: readonly SeedPet[],
    orders?: readonly Order[],
    author?: Pick<ChangeAuthor, "at" | "reason">,
  ): Promise<boolean>;
  /** Releases the underlying resources. */
  close(): Promise<void>;
}
