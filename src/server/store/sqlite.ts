/** The embedded store: one SQLite file, WAL journal, fsync on every commit. */
import Database from "better-sqlite3";
import type { InventoryItem, Order, OrderStatus, Pet, PetStatus } from "../../api/types.js";
import { storedLists, toPet, type PetRow } from "./pet-record.js";
import { IdempotencyIndex } from "./idempotency-index.js";
import { MIGRATIONS } from "./migrations.js";
import { DEFAULT_LOCK_TIMEOUT_MS, isBusy, pause, retryPause } from "./sqlite-lock.js";
import {
  IDEMPOTENCY_TTL_MS,
  type ChangeAuthor,
  type ChangeRecord,
  type SeedPet,
  type Store,
  type UpdateOptions,
  type UpdateResult,
  type WriteOutcome,
  authorOf,
  unknownAuthor,
} from "./store.js";
import { StoreBusyError } from "./store-busy-error.js";

interface InventoryRow {
  id: bigint;
  quantity: bigint;
  status: PetStatus;
}

/** An entry as a write reads it: with its newest history record's id. */
interface CurrentRow extends InventoryRow {
  last_change: bigint | null;
}

interface ChangeRow {
  pet_id: bigint;
  at: bigint;
  previous: bigint | null;
  quantity: bigint;
  key_name: string | null;
  request_id: string | null;
  reason: string | null;
}

interface IdempotencyRow {
  owner: string;
  key: string;
  fingerprint: string;
  created_at: bigint;
  status: bigint;
  body: string;
  etag: string | null;
}

interface OrderRow {
  id: bigint;
  pet_id: bigint;
  quantity: bigint;
  ship_date: string;
  status: OrderStatus;
  complete: bigint;
}

/** An update waiting for the next group commit. */
interface PendingUpdate {
  petId: bigint;
  quantity: number;
  options: UpdateOptions;
  /** When it stops waiting for another process's lock and answers `busy` (`now()` clock). */
  deadline: number;
  resolve: (result: UpdateResult) => void;
  reject: (error: unknown) => void;
}

const toItem = (row: InventoryRow): InventoryItem => ({
  petId: row.id,
  quantity: Number(row.quantity),
  status: row.status,
});

export interface SqliteStoreOptions {
  /**
   * How often, at most, `revision()` asks SQLite whether another process wrote to the file
   * (each check takes a read lock: three system calls). This store's own writes change the
   * revision at once; another process's show within this many milliseconds.
   */
  externalCheckMs?: number;
  /**
   * How long an operation waits for a lock another process holds (a backup, the `sqlite3`
   * shell, a second server) before giving up: a write then answers `busy`, a read rejects with
   * StoreBusyError. The wait never blocks the event loop. Default 5000 ms; opening the file
   * (migrations) waits as long, blocking, since nothing is served yet.
   */
  lockTimeoutMs?: number;
  /** Monotonic clock in milliseconds for that interval and the lock time-out (tests drive it). */
  now?: () => number;
}

/**
 * better-sqlite3 12 wraps connections and statements in node::ObjectWrap, whose destructor on
 * Node.js 24 aborts the process when V8 collects one outside a JavaScript context ("Assertion
 * failed: (env) != nullptr", WiseLibs/better-sqlite3#1515; version 13 fixes it but needs
 * Node.js 22). So none may be collected: every connection and statement a store makes is kept
 * for the life of the process. A server opens one store and prepares its statements once: a
 * few dozen objects.
 */
const RETAINED: object[] = [];

function retain<T extends object>(value: T): T {
  RETAINED.push(value);
  return value;
}

/** Opens a connection whose every statement (its transactions' own too) is kept. */
function openRetained(path: string): Database.Database {
  const db = retain(new Database(path));
  const prepare = db.prepare.bind(db);
  // One override on this connection catches every statement, however and whenever made.
  db.prepare = (source: string) => retain(prepare(source));
  return db;
}

/** Runs a PRAGMA on a kept statement (`db.pragma()` would leave one to the collector). */
function pragma(db: Database.Database, source: string): unknown {
  const statement = db.prepare(`PRAGMA ${source}`);
  return statement.reader ? statement.pluck().get() : statement.run();
}

/** Opens (creating if needed) the SQLite database at `path` and migrates it to the latest schema. */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const now = options.now ?? (() => performance.now());
  const started = now();
  const db = openRetained(path);
  try {
    // While opening, nothing is served yet: SQLite may wait for a lock in place.
    pragma(db, `busy_timeout = ${Math.round(lockTimeoutMs)}`);
    pragma(db, "journal_mode = WAL");
    // FULL: a commit returns only once the WAL is fsynced, so a 200 survives a crash.
    pragma(db, "synchronous = FULL");
    pragma(db, "foreign_keys = ON");
    // Checkpoints reuse the WAL file; this bounds what it keeps on disk after one.
    pragma(db, "journal_size_limit = 16777216");
    db.defaultSafeIntegers(true);
    migrate(db);
    // From here on a lock fails at once and the store waits asynchronously (sqlite-lock.ts).
    pragma(db, "busy_timeout = 0");
  } catch (error) {
    db.close();
    if (isBusy(error)) {
      // SQLite fails at once, without waiting, where waiting could deadlock.
      const waited = now() - started;
      throw new StoreBusyError(
        `the database is locked by another process (waited ${Math.round(waited)} ms)`,
        waited,
      );
    }
    throw error;
  }
  return new SqliteStore(db, options.externalCheckMs ?? 250, now, lockTimeoutMs);
}

function migrate(db: Database.Database): void {
  const current = Number(pragma(db, "user_version"));
  if (current > MIGRATIONS.length) {
    throw new Error(
      `database schema version ${current} is newer than this petstore supports (${MIGRATIONS.length})`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version] ?? "");
      pragma(db, `user_version = ${version + 1}`);
    }).immediate();
  }
}

class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #list: Database.Statement<[], InventoryRow>;
  readonly #update: Database.Statement<[bigint, bigint, bigint]>;
  readonly #item: Database.Statement<[bigint], InventoryRow>;
  readonly #current: Database.Statement<[bigint], CurrentRow>;
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
    ]
  >;
  readonly #changes: Database.Statement<[bigint, bigint], ChangeRow>;
  readonly #exists: Database.Statement<[bigint], bigint>;
  readonly #record: Database.Statement<[number], IdempotencyRow>;
  readonly #saveRecord: Database.Statement<
    [string, string, string, bigint, bigint, string, string | null]
  >;
  readonly #recordsAfter: Database.Statement<[number], { id: bigint; owner: string; key: string }>;
  readonly #oldestRecord: Database.Statement<[], bigint | null>;
  readonly #deleteRecord: Database.Statement<[number]>;
  readonly #purgeRecords: Database.Statement<[bigint, bigint]>;
  /** Finds each key's record (the table has no index on keys: idempotency-index.ts says why). */
  readonly #keys = new IdempotencyIndex();
  readonly #pet: Database.Statement<[bigint], PetRow>;
  readonly #orders: Database.Statement<[], OrderRow>;
  readonly #count: Database.Statement<[], { n: bigint }>;
  readonly #dataVersion: Database.Statement<[], bigint>;
  readonly #insertPet: Database.Statement<
    [bigint, string, string, bigint, bigint | null, string | null, string, string, bigint]
  >;
  readonly #insertOrder: Database.Statement<[bigint, bigint, bigint, string, string, bigint]>;
  /** Counts this connection's own writes: `data_version` only sees other connections'. */
  #writes = 0;
  #pendingUpdates: PendingUpdate[] = [];
  /** Whether a group commit is due on the next turn of the event loop. */
  #commitScheduled = false;
  /** Set while pending updates wait for another process's lock: the next attempt. */
  #retryTimer: NodeJS.Timeout | undefined;
  /** Failed attempts in a row, for the backoff between them. */
  #retries = 0;
  readonly #externalCheckMs: number;
  readonly #now: () => number;
  readonly #lockTimeoutMs: number;
  #externalVersion = 0n;
  #externalCheckedAt = -Infinity;

  constructor(
    db: Database.Database,
    externalCheckMs: number,
    now: () => number,
    lockTimeoutMs: number,
  ) {
    this.#db = db;
    this.#externalCheckMs = externalCheckMs;
    this.#now = now;
    this.#lockTimeoutMs = lockTimeoutMs;
    this.#list = db.prepare("SELECT id, quantity, status FROM pets ORDER BY id");
    this.#update = db.prepare("UPDATE pets SET quantity = ?, last_change = ? WHERE id = ?");
    this.#item = db.prepare("SELECT id, quantity, status FROM pets WHERE id = ?");
    this.#current = db.prepare("SELECT id, quantity, status, last_change FROM pets WHERE id = ?");
    this.#addChange = db.prepare(
      `INSERT INTO inventory_changes
         (pet_id, earlier_change, at, previous, quantity, key_name, request_id, reason)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // The entry's chain, newest first: its last change, then each change's earlier one.
    this.#changes = db.prepare(
      `WITH RECURSIVE chain (depth, id) AS (
         SELECT 1, last_change FROM pets WHERE id = ? AND last_change IS NOT NULL
         UNION ALL
         SELECT chain.depth + 1, c.earlier_change
         FROM chain JOIN inventory_changes c ON c.id = chain.id
         WHERE c.earlier_change IS NOT NULL AND chain.depth < ?
       )
       SELECT c.pet_id, c.at, c.previous, c.quantity, c.key_name, c.request_id, c.reason
       FROM chain JOIN inventory_changes c ON c.id = chain.id
       ORDER BY chain.depth`,
    );
    this.#exists = db.prepare<[bigint], bigint>("SELECT 1 FROM pets WHERE id = ?").pluck();
    this.#record = db.prepare(
      "SELECT owner, key, fingerprint, created_at, status, body, etag FROM idempotency_records WHERE id = ?",
    );
    // Appended: a key's newest record is the one that counts (an expired one, not yet
    // purged, stays until the purge takes it).
    this.#saveRecord = db.prepare(
      `INSERT INTO idempotency_records (owner, key, fingerprint, created_at, status, body, etag)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#recordsAfter = db.prepare(
      "SELECT id, owner, key FROM idempotency_records WHERE id > ? ORDER BY id",
    );
    this.#deleteRecord = db.prepare("DELETE FROM idempotency_records WHERE id = ?");
    this.#oldestRecord = db
      .prepare<[], bigint | null>("SELECT min(id) FROM idempotency_records")
      .pluck();
    // The newest record always stays, so ids only grow (SQLite gives max(id) + 1) and the
    // index can tell rows another process appended by their id alone.
    this.#purgeRecords = db.prepare(
      `DELETE FROM idempotency_records WHERE id IN
         (SELECT id FROM idempotency_records WHERE created_at < ? ORDER BY created_at LIMIT ?)
       AND id < (SELECT max(id) FROM idempotency_records)`,
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
    this.#catchUpRecords();
  }

  async listInventory(): Promise<InventoryItem[]> {
    return this.#whenUnlocked(() => this.#list.all().map(toItem));
  }

  async getInventoryItem(petId: bigint): Promise<InventoryItem | undefined> {
    const row = await this.#whenUnlocked(() => this.#item.get(petId));
    return row && toItem(row);
  }

  async listChanges(petId: bigint, limit: number): Promise<ChangeRecord[] | undefined> {
    // One read transaction: the entry and its chain as of one moment.
    const read = this.#db.transaction(() =>
      this.#exists.get(petId) === undefined ? undefined : this.#changes.all(petId, BigInt(limit)),
    );
    const rows = await this.#whenUnlocked(() => read.deferred());
    return rows?.map((row) => ({
      petId: row.pet_id,
      at: Number(row.at),
      previous: row.previous === null ? null : Number(row.previous),
      quantity: Number(row.quantity),
      keyName: row.key_name,
      requestId: row.request_id,
      reason: row.reason,
    }));
  }

  async purgeIdempotencyRecords(before: number, limit: number): Promise<number> {
    const result = await this.#whenUnlocked(() =>
      this.#purgeRecords.run(BigInt(Math.floor(before)), BigInt(limit)),
    );
    // Whoever purged (this process or another), the index forgets what is gone.
    const oldest = await this.#whenUnlocked(() => this.#oldestRecord.get());
    this.#keys.forgetBelow(oldest === null || oldest === undefined ? undefined : Number(oldest));
    return result.changes;
  }

  /** Adds to the index the records appended since it last looked (by another process, or on open). */
  #catchUpRecords(): void {
    // all(), never iterate(): an iterator is a native object the collector would take, which
    // aborts Node.js 24 (see RETAINED above).
    for (const row of this.#recordsAfter.all(this.#keys.lastId)) {
      this.#keys.addCommitted(Number(row.id), row.owner, row.key);
    }
  }

  /**
   * Runs `apply` in one IMMEDIATE transaction: the index first learns of records other
   * processes committed; the records `apply` adds count only once the transaction commits.
   */
  #inTransaction<T>(apply: () => T): T {
    try {
      const result = this.#db
        .transaction(() => {
          this.#catchUpRecords();
          return apply();
        })
        .immediate();
      this.#keys.commit();
      return result;
    } catch (error) {
      this.#keys.rollback();
      throw error;
    }
  }

  /**
   * Group commit: updates that arrive while the event loop is busy (often with the previous
   * commit's fsync) are written in one transaction, so one fsync serves them all. Each
   * promise settles only after its transaction has committed, so a 200 is still on disk.
   * While another process holds the write lock, the updates wait (asynchronously) and
   * later ones join them; each answers `busy` once it has waited the lock time-out.
   */
  updateQuantity(
    petId: bigint,
    quantity: number,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    return new Promise((resolve, reject) => {
      const deadline = this.#now() + this.#lockTimeoutMs;
      this.#pendingUpdates.push({ petId, quantity, options, deadline, resolve, reject });
      // While a retry is due, the update joins it instead.
      if (this.#commitScheduled || this.#retryTimer) return;
      this.#commitScheduled = true;
      setImmediate(() => {
        this.#commitScheduled = false;
        this.#commitPendingUpdates();
      });
    });
  }

  #commitPendingUpdates(): void {
    const batch = this.#pendingUpdates;
    if (batch.length === 0) return;
    this.#pendingUpdates = [];
    let locked: PendingUpdate[] = [];
    try {
      // One after the other in one transaction: each check sees the writes before it, so
      // two writes conditional on one quantity cannot both pass.
      const settled = this.#inTransaction(() =>
        batch.map((update) => ({ update, result: this.#apply(update) })),
      );
      for (const { update, result } of settled) update.resolve(this.#settled(result));
    } catch (error) {
      // BEGIN IMMEDIATE met another process's lock: nothing ran. Otherwise one bad update
      // must not fail the others: commit each on its own.
      locked = isBusy(error) ? batch : this.#commitOneByOne(batch);
    }
    this.#waitForLock(locked);
  }

  /** Commits each update in its own transaction; returns those left when one met a lock. */
  #commitOneByOne(batch: readonly PendingUpdate[]): PendingUpdate[] {
    for (const [index, update] of batch.entries()) {
      try {
        const result = this.#inTransaction(() => this.#apply(update));
        update.resolve(this.#settled(result));
      } catch (error) {
        // The rest wait too, so two updates of one pet still commit in order.
        if (isBusy(error)) return batch.slice(index);
        update.reject(error);
      }
    }
    return [];
  }

  /**
   * Answers `busy` to the updates that met a lock and have waited their time-out (nothing
   * of theirs was written), and tries the others again after a short pause, ahead of the
   * updates that arrive meanwhile.
   */
  #waitForLock(locked: readonly PendingUpdate[]): void {
    const now = this.#now();
    const waiting: PendingUpdate[] = [];
    for (const update of locked) {
      if (now >= update.deadline) update.resolve({ kind: "busy" });
      else waiting.push(update);
    }
    const [first] = waiting;
    if (!first) {
      this.#retries = 0;
      return;
    }
    this.#pendingUpdates = [...waiting, ...this.#pendingUpdates];
    // The last attempt is made right at the first deadline, not up to a pause after it.
    const delay = Math.min(retryPause(this.#retries++), first.deadline - now);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#commitPendingUpdates();
    }, delay);
  }

  /**
   * One update inside the current transaction: the idempotency key's record first (a replay
   * or a reuse writes nothing), then the condition and the write, then the key's new record.
   */
  #apply(update: PendingUpdate): UpdateResult {
    const claim = update.options.idempotency;
    if (!claim) return this.#write(update);
    const id = this.#keys.find(claim.owner, claim.key);
    // The row is checked against the claim: the index is only a pointer into the table.
    const row = id === undefined ? undefined : this.#record.get(id);
    const record = row?.owner === claim.owner && row.key === claim.key ? row : undefined;
    if (record && Number(record.created_at) > claim.at - IDEMPOTENCY_TTL_MS) {
      if (record.fingerprint !== claim.fingerprint) return { kind: "key_reused" };
      return {
        kind: "replayed",
        response: { status: Number(record.status), body: record.body, etag: record.etag },
      };
    }
    const outcome = this.#write(update);
    const response = claim.render(outcome);
    // An expired record of the key gives way to the new one.
    if (record && id !== undefined) this.#deleteRecord.run(id);
    const saved = this.#saveRecord.run(
      claim.owner,
      claim.key,
      claim.fingerprint,
      BigInt(Math.floor(claim.at)),
      BigInt(response.status),
      response.body,
      response.etag,
    );
    this.#keys.addPending(Number(saved.lastInsertRowid), claim.owner, claim.key);
    return outcome;
  }

  /**
   * Checks the update's condition, appends the change to the entry's history and writes.
   * Every statement runs to completion (run(), not a half-stepped get()), which lets the
   * automatic checkpoint recycle the WAL.
   */
  #write(update: PendingUpdate): WriteOutcome {
    const { condition } = update.options;
    const row = this.#current.get(update.petId);
    if (!row) return { kind: "not_found" };
    if (condition?.kind === "quantity_in" && !condition.quantities.includes(Number(row.quantity))) {
      return { kind: "precondition_failed", current: toItem(row) };
    }
    const author = authorOf(update.options);
    const quantity = BigInt(update.quantity);
    const change = this.#addChange.run(
      update.petId,
      row.last_change,
      BigInt(Math.floor(author.at)),
      row.quantity,
      quantity,
      author.keyName,
      author.requestId,
      author.reason,
    );
    this.#update.run(quantity, BigInt(change.lastInsertRowid), update.petId);
    return {
      kind: "updated",
      item: { petId: row.id, quantity: update.quantity, status: row.status },
    };
  }

  /** Counts a committed write, so `revision()` changes. */
  #settled(result: UpdateResult): UpdateResult {
    if (result.kind === "updated") this.#writes++;
    return result;
  }

  async getPet(petId: bigint): Promise<Pet | undefined> {
    const row = await this.#whenUnlocked(() => this.#pet.get(petId));
    return row && toPet(row);
  }

  async listOrders(): Promise<Order[]> {
    const rows = await this.#whenUnlocked(() => this.#orders.all());
    return rows.map((row) => ({
      id: row.id,
      petId: row.pet_id,
      quantity: Number(row.quantity),
      shipDate: row.ship_date,
      status: row.status,
      complete: row.complete === 1n,
    }));
  }

  async revision(): Promise<string> {
    const now = this.#now();
    if (now - this.#externalCheckedAt >= this.#externalCheckMs) {
      this.#externalVersion = (await this.#whenUnlocked(() => this.#dataVersion.get())) ?? 0n;
      this.#externalCheckedAt = now;
    }
    return `${this.#externalVersion}:${this.#writes}`;
  }

  /** A file open in this process is always there. */
  async ping(): Promise<void> {
    // Nothing to ask: reads fail on their own while another process holds a lock.
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
   * Commits the updates still pending; one that meets another process's lock answers `busy`
   * at once (nothing of it written) rather than holding up the close.
   */
  async close(): Promise<void> {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    for (const update of this.#pendingUpdates) update.deadline = -Infinity;
    this.#commitPendingUpdates();
    this.#db.close();
  }

  /**
   * Runs `read` (or a seed), trying again after short asynchronous pauses while another
   * process's lock is in the way; rejects with StoreBusyError after the lock time-out.
   */
  async #whenUnlocked<T>(read: () => T): Promise<T> {
    const started = this.#now();
    for (let retry = 0; ; retry++) {
      try {
        return read();
      } catch (error) {
        if (!isBusy(error)) throw error;
      }
      const waited = this.#now() - started;
      if (waited >= this.#lockTimeoutMs) {
        throw new StoreBusyError(
          `the database is locked by another process (waited ${Math.round(waited)} ms)`,
          waited,
        );
      }
      await pause(Math.min(retryPause(retry), this.#lockTimeoutMs - waited));
    }
  }
}
