/**
 * The embedded store: one SQLite file, WAL journal, fsync on every commit. Reads ask the file;
 * writes go through group commits (group-commit.ts) whose transaction reads the entries and
 * idempotency records, lets the write plan (../write-plan.ts) decide, and writes what it says.
 */
import type Database from "better-sqlite3";
import type { InventoryItem, Order, Pet } from "../../../api/types.js";
import { columnsToFeedRecord, storedLists, toItem, toKeyRecord, toOrder, toPet } from "../rows.js";
import {
  DEFAULT_LOCK_TIMEOUT_MS,
  checkQuantity,
  unknownAuthor,
  type ChangeAuthor,
  type BatchOptions,
  type BatchResult,
  type BatchWrite,
  type FeedRecord,
  type InventorySnapshot,
  type SeedPet,
  type Store,
  type UpdateOptions,
  type UpdateResult,
} from "../store.js";
import {
  asBatchResult,
  asUpdateResult,
  claimOf,
  commonPrefix,
  keyId,
  petIdsOf,
  countsOf,
  planWrites,
  type PetRef,
  refsOf,
  seqThrough,
  sinceByPet,
  withSeqs,
  type KeyRecord,
  type PlannedResult,
  type PlannedWrite,
} from "../write-plan.js";
import { openConnection } from "./connection.js";
import { prepareStatements, type SqliteStatements } from "./statements.js";
import { GroupCommit } from "./group-commit.js";
import { whenUnlocked } from "./lock.js";
import { isStorageFull, storageFull } from "./storage-full.js";

export interface SqliteStoreOptions {
  /**
   * How long an operation waits for a lock another process holds (a backup, the `sqlite3`
   * shell, a second server) before giving up: a write then answers `busy`, a read rejects with
   * StoreBusyError. The wait never blocks the event loop. Default 5000 ms; opening the file
   * (migrations) waits as long, blocking, since nothing is served yet.
   */
  lockTimeoutMs?: number;
  /** Monotonic clock in milliseconds for the lock time-out (tests drive it). */
  now?: () => number;
}

/** Opens (creating if needed) the SQLite database at `path` and migrates it to the latest schema. */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const now = options.now ?? (() => performance.now());
  return new SqliteStore(openConnection(path, lockTimeoutMs, now), path, now, lockTimeoutMs);
}

class SqliteStore implements Store {
  readonly #db: Database.Database;
  /** The file, as given: named in the server's log when it is full. */
  readonly #path: string;
  readonly #sql: SqliteStatements;
  /** One group commit's transaction (made once: see connection.ts on what is kept). */
  readonly #commitWrites: Database.Transaction<
    (writes: readonly PlannedWrite[]) => PlannedResult[]
  >;
  readonly #groupCommit: GroupCommit;
  /** Counts this connection's own commits: `data_version` only sees other connections'. */
  #writes = 0;
  readonly #now: () => number;
  readonly #lockTimeoutMs: number;

  constructor(db: Database.Database, path: string, now: () => number, lockTimeoutMs: number) {
    this.#db = db;
    this.#path = path;
    this.#now = now;
    this.#lockTimeoutMs = lockTimeoutMs;
    this.#sql = prepareStatements(db);
    this.#commitWrites = db.transaction((writes: readonly PlannedWrite[]) => this.#write(writes));
    this.#groupCommit = new GroupCommit(
      (writes) => this.#commitWrites.immediate(writes),
      lockTimeoutMs,
      now,
    );
  }

  /** One read transaction: the entries and the latest seq as of one moment. */
  async listInventory(): Promise<InventorySnapshot> {
    const read = this.#db.transaction(() => ({
      items: this.#sql.list.all().map(toItem),
      seq: this.#sql.latestSeq.get() ?? 0n,
    }));
    return this.#whenUnlocked(() => read.deferred());
  }

  async getInventoryItem(petId: bigint): Promise<{ item: InventoryItem; seq: bigint } | undefined> {
    const read = this.#db.transaction(() => {
      const row = this.#sql.item.get(petId);
      return row && { item: toItem(row), seq: this.#sql.latestSeq.get() ?? 0n };
    });
    return this.#whenUnlocked(() => read.deferred());
  }

  async listChanges(petId: bigint, limit: number): Promise<FeedRecord[] | undefined> {
    // One read transaction: the entry and its chain as of one moment.
    const read = this.#db.transaction(() =>
      this.#sql.exists.get(petId) === undefined
        ? undefined
        : this.#sql.changes.all(petId, BigInt(limit)),
    );
    const rows = await this.#whenUnlocked(() => read.deferred());
    return rows?.map(columnsToFeedRecord);
  }

  async listFeed(after: bigint, limit: number): Promise<FeedRecord[]> {
    const rows = await this.#whenUnlocked(() => this.#sql.feed.all(after, BigInt(limit)));
    return rows.map(columnsToFeedRecord);
  }

  async purgeIdempotencyRecords(before: number, limit: number): Promise<number> {
    const result = await this.#whenUnlocked(() =>
      this.#sql.purgeRecords.run(BigInt(Math.floor(before)), BigInt(limit)),
    );
    return result.changes;
  }

  /**
   * Group commit (group-commit.ts): writes that arrive together are committed together, each
   * seeing the ones before it; each settles once its transaction has committed.
   */
  async updateQuantity(
    petId: bigint,
    quantity: number,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    checkQuantity(quantity);
    return asUpdateResult(await this.#commit({ kind: "update", petId, quantity, options }));
  }

  /** A batch joins the group commit as one write: one transaction, all of it or none. */
  async applyBatch(batch: BatchWrite, options: BatchOptions = {}): Promise<BatchResult> {
    return asBatchResult(await this.#commit({ kind: "batch", batch, options }));
  }

  /**
   * A write through the group commit. One the file system had no room for rejects with
   * StoreFullError: its transaction was rolled back whole (a group the disk refused is tried
   * again write by write, so a write that fits still commits), and the connection serves on.
   */
  async #commit(write: PlannedWrite): Promise<PlannedResult> {
    try {
      return await this.#groupCommit.write(write);
    } catch (error) {
      if (isStorageFull(error)) throw storageFull(this.#path, error);
      throw error;
    }
  }

  /**
   * Inside one group commit's transaction: reads every entry, key record and business
   * reference the writes name, plans them, and writes the plan: history records chained to
   * each entry's last one, the entries' new quantities, the keys' answers. Every statement
   * runs to completion (run(), all() or a single-row get()), which lets the automatic checkpoint
   * recycle the WAL.
   */
  #write(writes: readonly PlannedWrite[]): PlannedResult[] {
    const entries = new Map<bigint, InventoryItem>();
    const lastChange = new Map<bigint, bigint | null>();
    const keys = new Map<string, KeyRecord>();
    const refs: PetRef[] = [];
    for (const petId of petIdsOf(writes)) {
      const row = this.#sql.current.get(petId);
      lastChange.set(petId, row?.last_change ?? null);
      if (row) entries.set(petId, toItem(row));
    }
    const wanted = refsOf(writes);
    if (wanted.length > 0 && this.#mayBeApplied(wanted)) {
      const pairs = JSON.stringify(wanted.map(({ petId, ref }) => [petId.toString(), ref]));
      for (const row of this.#sql.findRefs.all(pairs))
        refs.push({ petId: row.pet_id, ref: row.ref });
    }
    for (const write of writes) {
      const claim = claimOf(write);
      if (claim && !keys.has(keyId(claim.owner, claim.key))) {
        const row = this.#sql.record.get(claim.owner, claim.key);
        keys.set(keyId(claim.owner, claim.key), row ? toKeyRecord(row) : { kind: "absent" });
      }
    }
    // The transaction is the file's only writer: nothing commits between these reads and it.
    const latestSeq = this.#sql.latestSeq.get() ?? 0n;
    const since: { petId: bigint; asOf: bigint; net: number }[] = [];
    // A pet whose last change is no later than the count's seq has moved 0 since: the common
    // case (a shelf counted and posted with no sale between) costs no walk.
    const moved = (petId: bigint, asOf: bigint) => (lastChange.get(petId) ?? 0n) > asOf;
    for (const { petId, asOf } of countsOf(writes, moved)) {
      since.push({ petId, asOf, net: Number(this.#sql.since.get({ pet: petId, asOf }) ?? 0n) });
    }
    const plan = planWrites(writes, {
      entries,
      keys,
      refs,
      since: sinceByPet(since),
      latestSeq,
    });
    // Counted before the commit: a commit that then fails only costs a cached list.
    if (plan.changes.length > 0) this.#writes++;
    const seqs: bigint[] = [];
    for (const change of plan.changes) {
      const { author } = change;
      const added = this.#sql.addChange.run(
        change.petId,
        lastChange.get(change.petId) ?? null,
        BigInt(Math.floor(author.at)),
        BigInt(change.previous),
        BigInt(change.quantity),
        author.keyName,
        author.requestId,
        author.reason,
        change.ref,
      );
      lastChange.set(change.petId, BigInt(added.lastInsertRowid));
      seqs.push(BigInt(added.lastInsertRowid));
    }
    for (const [petId, quantity] of plan.quantities) {
      this.#sql.update.run(BigInt(quantity), lastChange.get(petId) ?? null, petId);
    }
    const seqOfChange = (index: number) => seqs[index] ?? latestSeq;
    for (const answer of plan.answers) {
      this.#sql.keepRecord.run(
        answer.owner,
        answer.key,
        answer.fingerprint,
        BigInt(Math.floor(answer.at)),
        BigInt(answer.response.status),
        answer.response.body,
        answer.response.etag,
        seqThrough(answer.changesThrough, seqOfChange, latestSeq),
      );
    }
    return withSeqs(plan, seqOfChange, latestSeq);
  }

  /**
   * Whether any of `wanted` may be applied already. A batch's refs mostly share a prefix (a
   * count session's `count:<session>:`, a sales file's `--ref-prefix`): when no stored ref
   * starts with it, none of them is stored, which one probe of the refs' index tells instead
   * of one lookup per ref. Refs sharing no prefix are looked up one by one.
   */
  #mayBeApplied(wanted: readonly PetRef[]): boolean {
    const prefix = commonPrefix(wanted.map(({ ref }) => ref));
    if (prefix === "") return true;
    return this.#sql.firstRefFrom.get(prefix)?.startsWith(prefix) ?? false;
  }

  async getPet(petId: bigint): Promise<Pet | undefined> {
    const row = await this.#whenUnlocked(() => this.#sql.pet.get(petId));
    return row && toPet(row);
  }

  async listOrders(): Promise<Order[]> {
    const rows = await this.#whenUnlocked(() => this.#sql.orders.all());
    return rows.map(toOrder);
  }

  /** The last history record's id, which is its seq. */
  async latestSeq(): Promise<bigint> {
    return this.#whenUnlocked(() => this.#sql.latestSeq.get() ?? 0n);
  }

  /**
   * This connection's own commits, and `data_version`, which SQLite changes whenever another
   * connection (another process) commits to the file: asked on every call, so another
   * process's acknowledged write shows at once.
   */
  async revision(): Promise<string> {
    const external = await this.#whenUnlocked(() => this.#sql.dataVersion.get());
    return `${external ?? 0n}:${this.#writes}`;
  }

  /** A read of the file: it waits (up to the lock time-out) while another process locks reads out. */
  async ping(): Promise<void> {
    await this.#whenUnlocked(() => this.#sql.item.get(0n));
  }

  async seedIfEmpty(
    pets: readonly SeedPet[],
    orders: readonly Order[] = [],
    author: Pick<ChangeAuthor, "at" | "reason"> = unknownAuthor(),
  ): Promise<boolean> {
    const seed = this.#db.transaction(() => {
      if ((this.#sql.count.get()?.n ?? 0n) > 0n) return false;
      for (const pet of pets) {
        const lists = storedLists(pet);
        const change = this.#sql.addChange.run(
          pet.id,
          null,
          BigInt(Math.floor(author.at)),
          null,
          BigInt(pet.quantity),
          null,
          null,
          author.reason,
          null,
        );
        this.#sql.insertPet.run(
          pet.id,
          pet.name,
          pet.status,
          BigInt(pet.quantity),
          pet.category?.id ?? null,
          pet.category?.name ?? null,
          lists.photoUrls,
          lists.tags,
          BigInt(change.lastInsertRowid),
        );
      }
      for (const order of orders) {
        this.#sql.insertOrder.run(
          order.id,
          order.petId,
          BigInt(order.quantity),
          order.shipDate,
          order.status,
          order.complete ? 1n : 0n,
        );
      }
      return true;
    });
    const seeded = await this.#whenUnlocked(() => seed.immediate());
    if (seeded) this.#writes++;
    return seeded;
  }

  /**
   * Commits the writes still pending; one that meets another process's lock answers `busy`
   * at once (nothing of it written) rather than holding up the close.
   */
  async close(): Promise<void> {
    this.#groupCommit.flush();
    this.#db.close();
  }

  /** Runs a read (or a seed), waiting without blocking while another process holds a lock. */
  #whenUnlocked<T>(operation: () => T): Promise<T> {
    return whenUnlocked(operation, this.#lockTimeoutMs, this.#now);
  }
}
