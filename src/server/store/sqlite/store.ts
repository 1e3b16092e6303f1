/**
 * The embedded store: one SQLite file, WAL journal, fsync on every commit. Reads ask the file;
 * writes go through group commits (group-commit.ts) whose transaction reads the entries and
 * idempotency records, lets the write plan (../write-plan.ts) decide, and writes what it says.
 */
import type Database from "better-sqlite3";
import type { InventoryItem, Order, Pet } from "../../../api/types.js";
import {
  storedLists,
  toFeedRecord,
  toItem,
  toOrder,
  toPet,
  type ChangeRow,
  type IdempotencyRow,
  type InventoryRow,
  type OrderRow,
  type PetRow,
} from "../rows.js";
import {
  DEFAULT_LOCK_TIMEOUT_MS,
  checkQuantity,
  unknownAuthor,
  type ChangeAuthor,
  type BatchOptions,
  type BatchResult,
  type BatchWrite,
  type FeedRecord,
  type SeedPet,
  type Store,
  type UpdateOptions,
  type UpdateResult,
} from "../store.js";
import {
  asBatchResult,
  asUpdateResult,
  claimOf,
  keyId,
  petIdsOf,
  planWrites,
  refId,
  refsOf,
  type KeyRecord,
  type PlannedResult,
  type PlannedWrite,
} from "../write-plan.js";
import { openConnection } from "./connection.js";
import { GroupCommit } from "./group-commit.js";
import { whenUnlocked } from "./lock.js";
import { isStorageFull, storageFull } from "./storage-full.js";

/** An entry as a write reads it: with its newest history record's id. */
interface CurrentRow extends InventoryRow {
  last_change: bigint | null;
}

/** A key's record as a write reads it. */
type RecordRow = Omit<IdempotencyRow, "owner" | "key">;

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
  readonly #list: Database.Statement<[], InventoryRow>;
  readonly #item: Database.Statement<[bigint], InventoryRow>;
  readonly #current: Database.Statement<[bigint], CurrentRow>;
  readonly #update: Database.Statement<[bigint, bigint | null, bigint]>;
  readonly #addChange: Database.Statement<
    [
      bigint,
      bigint | null,
      bigint,
      bigint | null,
      bigint,
      string | null,
      string | null,
      string | null,
      string | null,
    ]
  >;
  readonly #hasRef: Database.Statement<[bigint, string], bigint>;
  readonly #changes: Database.Statement<[bigint, bigint], ChangeRow>;
  readonly #feed: Database.Statement<[bigint, bigint], ChangeRow>;
  readonly #exists: Database.Statement<[bigint], bigint>;
  readonly #record: Database.Statement<[string, string], RecordRow>;
  readonly #keepRecord: Database.Statement<
    [string, string, string, bigint, bigint, string, string | null]
  >;
  readonly #purgeRecords: Database.Statement<[bigint, bigint]>;
  readonly #pet: Database.Statement<[bigint], PetRow>;
  readonly #orders: Database.Statement<[], OrderRow>;
  readonly #count: Database.Statement<[], { n: bigint }>;
  readonly #dataVersion: Database.Statement<[], bigint>;
  readonly #insertPet: Database.Statement<
    [bigint, string, string, bigint, bigint | null, string | null, string, string, bigint]
  >;
  readonly #insertOrder: Database.Statement<[bigint, bigint, bigint, string, string, bigint]>;
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
    this.#list = db.prepare("SELECT id, quantity, status FROM pets ORDER BY id");
    this.#item = db.prepare("SELECT id, quantity, status FROM pets WHERE id = ?");
    this.#current = db.prepare("SELECT id, quantity, status, last_change FROM pets WHERE id = ?");
    this.#update = db.prepare("UPDATE pets SET quantity = ?, last_change = ? WHERE id = ?");
    this.#addChange = db.prepare(
      `INSERT INTO inventory_changes
         (pet_id, earlier_change, at, previous, quantity, key_name, request_id, reason, ref)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#hasRef = db
      .prepare<[bigint, string], bigint>(
        "SELECT 1 FROM inventory_changes WHERE pet_id = ? AND ref = ?",
      )
      .pluck();
    // The entry's chain, newest first: its last change, then each change's earlier one.
    this.#changes = db.prepare(
      `WITH RECURSIVE chain (depth, id) AS (
         SELECT 1, last_change FROM pets WHERE id = ? AND last_change IS NOT NULL
         UNION ALL
         SELECT chain.depth + 1, c.earlier_change
         FROM chain JOIN inventory_changes c ON c.id = chain.id
         WHERE c.earlier_change IS NOT NULL AND chain.depth < ?
       )
       SELECT c.id AS seq, c.pet_id, c.at, c.previous, c.quantity, c.key_name, c.request_id, c.reason, c.ref
       FROM chain JOIN inventory_changes c ON c.id = chain.id
       ORDER BY chain.depth`,
    );
    this.#feed = db.prepare(
      `SELECT id AS seq, pet_id, at, previous, quantity, key_name, request_id, reason, ref
       FROM inventory_changes WHERE id > ? ORDER BY id LIMIT ?`,
    );
    this.#exists = db.prepare<[bigint], bigint>("SELECT 1 FROM pets WHERE id = ?").pluck();
    this.#record = db.prepare(
      `SELECT fingerprint, created_at, status, body, etag FROM idempotency_records
       WHERE owner = ? AND key = ?`,
    );
    // A key's expired record, not yet purged, gives way to the new one.
    this.#keepRecord = db.prepare(
      `INSERT INTO idempotency_records (owner, key, fingerprint, created_at, status, body, etag)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (owner, key) DO UPDATE SET fingerprint = excluded.fingerprint,
         created_at = excluded.created_at, status = excluded.status, body = excluded.body,
         etag = excluded.etag`,
    );
    this.#purgeRecords = db.prepare(
      `DELETE FROM idempotency_records WHERE id IN
         (SELECT id FROM idempotency_records WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
    );
    this.#pet = db.prepare(
      "SELECT id, name, status, category_id, category_name, photo_urls, tags FROM pets WHERE id = ?",
    );
    this.#orders = db.prepare(
      "SELECT id, pet_id, quantity, ship_date, status, complete FROM orders ORDER BY id",
    );
    this.#count = db.prepare("SELECT count(*) AS n FROM pets");
    this.#dataVersion = db.prepare<[], bigint>("PRAGMA data_version").pluck();
    this.#insertPet = db.prepare(
      `INSERT INTO pets
         (id, name, status, quantity, category_id, category_name, photo_urls, tags, last_change)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#insertOrder = db.prepare(
      "INSERT INTO orders (id, pet_id, quantity, ship_date, status, complete) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.#commitWrites = db.transaction((writes: readonly PlannedWrite[]) => this.#write(writes));
    this.#groupCommit = new GroupCommit(
      (writes) => this.#commitWrites.immediate(writes),
      lockTimeoutMs,
      now,
    );
  }

  async listInventory(): Promise<InventoryItem[]> {
    return this.#whenUnlocked(() => this.#list.all().map(toItem));
  }

  async getInventoryItem(petId: bigint): Promise<InventoryItem | undefined> {
    const row = await this.#whenUnlocked(() => this.#item.get(petId));
    return row && toItem(row);
  }

  async listChanges(petId: bigint, limit: number): Promise<FeedRecord[] | undefined> {
    // One read transaction: the entry and its chain as of one moment.
    const read = this.#db.transaction(() =>
      this.#exists.get(petId) === undefined ? undefined : this.#changes.all(petId, BigInt(limit)),
    );
    const rows = await this.#whenUnlocked(() => read.deferred());
    return rows?.map(toFeedRecord);
  }

  async listFeed(after: bigint, limit: number): Promise<FeedRecord[]> {
    const rows = await this.#whenUnlocked(() => this.#feed.all(after, BigInt(limit)));
    return rows.map(toFeedRecord);
  }

  async purgeIdempotencyRecords(before: number, limit: number): Promise<number> {
    const result = await this.#whenUnlocked(() =>
      this.#purgeRecords.run(BigInt(Math.floor(before)), BigInt(limit)),
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
   * runs to completion (run() or a single-row get()), which lets the automatic checkpoint
   * recycle the WAL.
   */
  #write(writes: readonly PlannedWrite[]): PlannedResult[] {
    const entries = new Map<bigint, InventoryItem>();
    const lastChange = new Map<bigint, bigint | null>();
    const keys = new Map<string, KeyRecord>();
    const refs = new Set<string>();
    for (const petId of petIdsOf(writes)) {
      const row = this.#current.get(petId);
      lastChange.set(petId, row?.last_change ?? null);
      if (row) entries.set(petId, toItem(row));
    }
    for (const { petId, ref } of refsOf(writes)) {
      if (this.#hasRef.get(petId, ref) !== undefined) refs.add(refId(petId, ref));
    }
    for (const write of writes) {
      const claim = claimOf(write);
      if (claim && !keys.has(keyId(claim.owner, claim.key))) {
        const row = this.#record.get(claim.owner, claim.key);
        keys.set(
          keyId(claim.owner, claim.key),
          row
            ? {
                kind: "recorded",
                fingerprint: row.fingerprint,
                at: Number(row.created_at),
                response: { status: Number(row.status), body: row.body, etag: row.etag },
              }
            : { kind: "absent" },
        );
      }
    }
    const plan = planWrites(writes, { entries, keys, refs });
    // Counted before the commit: a commit that then fails only costs a cached list.
    if (plan.changes.length > 0) this.#writes++;
    for (const change of plan.changes) {
      const { author } = change;
      const added = this.#addChange.run(
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
    }
    for (const [petId, quantity] of plan.quantities) {
      this.#update.run(BigInt(quantity), lastChange.get(petId) ?? null, petId);
    }
    for (const answer of plan.answers) {
      this.#keepRecord.run(
        answer.owner,
        answer.key,
        answer.fingerprint,
        BigInt(Math.floor(answer.at)),
        BigInt(answer.response.status),
        answer.response.body,
        answer.response.etag,
      );
    }
    return plan.results;
  }

  async getPet(petId: bigint): Promise<Pet | undefined> {
    const row = await this.#whenUnlocked(() => this.#pet.get(petId));
    return row && toPet(row);
  }

  async listOrders(): Promise<Order[]> {
    const rows = await this.#whenUnlocked(() => this.#orders.all());
    return rows.map(toOrder);
  }

  /**
   * This connection's own commits, and `data_version`, which SQLite changes whenever another
   * connection (another process) commits to the file: asked on every call, so another
   * process's acknowledged write shows at once.
   */
  async revision(): Promise<string> {
    const external = await this.#whenUnlocked(() => this.#dataVersion.get());
    return `${external ?? 0n}:${this.#writes}`;
  }

  /** A read of the file: it waits (up to the lock time-out) while another process locks reads out. */
  async ping(): Promise<void> {
    await this.#whenUnlocked(() => this.#item.get(0n));
  }

  async seedIfEmpty(
    pets: readonly SeedPet[],
    orders: readonly Order[] = [],
    author: Pick<ChangeAuthor, "at" | "reason"> = unknownAuthor(),
  ): Promise<boolean> {
    const seed = this.#db.transaction(() => {
      if ((this.#count.get()?.n ?? 0n) > 0n) return false;
      for (const pet of pets) {
        const lists = storedLists(pet);
        const change = this.#addChange.run(
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
        this.#insertPet.run(
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
        this.#insertOrder.run(
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
