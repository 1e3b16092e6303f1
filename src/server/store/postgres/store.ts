/**
 * The shared store: PostgreSQL through `pg`, for several `petstore serve` instances on one
 * database. Every write is committed (synchronous_commit on) before it is answered, in group
 * commits (group-commit.ts) that lock the entries, let the write plan decide and keep
 * idempotency records in the write's transaction (write-batch.ts). `revision()` reads a
 * counter raised in every change's transaction, by a read that starts after the call
 * (fresh-read.ts), so every instance sees every other's acknowledged writes.
 */
import type pg from "pg";
import type { InventoryItem, Order, Pet } from "../../../api/types.js";
import {
  columnsToFeedRecord,
  storedLists,
  toFeedRecord,
  toItem,
  toOrder,
  toPet,
  type ChangeColumns,
  type ChangeRow,
  type InventoryRow,
  type OrderRow,
  type PetRow,
} from "../rows.js";
import { freshRead } from "./fresh-read.js";
import { isConfigurationRefusal } from "./refusal.js";
import { SQL, run, type StatementName } from "./statements.js";
import { migrate } from "./migrations.js";
import {
  beginTransaction,
  checkOut,
  createPool,
  describeDatabase,
  isDiskFull,
  isLockFailure,
  isUnreachable,
  probe,
  reasonOf,
  statementBound,
  timedStatement,
  waitForAdvisoryLock,
  type Waits,
} from "./connection.js";
import { GroupCommit } from "./group-commit.js";
import {
  DEFAULT_LOCK_TIMEOUT_MS,
  checkQuantity,
  unknownAuthor,
  type BatchOptions,
  type BatchResult,
  type BatchWrite,
  type ChangeAuthor,
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
  type PlannedResult,
  type PlannedWrite,
} from "../write-plan.js";
import { StoreBusyError } from "../store-busy-error.js";
import { StoreFullError } from "../store-full-error.js";
import { StoreUnavailableError } from "../store-unavailable-error.js";

export interface PostgresStoreOptions {
  /** Connections at most (default 10): group commits use one at a time, reads the rest. */
  poolSize?: number;
  /** How long a write waits for a row another instance holds before answering `busy` (5 s). */
  lockTimeoutMs?: number;
  /** How long opening a connection may take before the database counts as unreachable (5 s). */
  connectTimeoutMs?: number;
  /** Told when an idle connection fails (the pool drops it and opens another when needed). */
  onConnectionError?: (message: string) => void;
}

/** The key of the advisory lock that serializes seeding, so only one instance seeds. */
export const SEED_LOCK = "7310593858348875622";

/** A row of the history's LEFT JOIN: every column null for a pet without records. */
type HistoryRow = ChangeRow | { [Column in keyof ChangeRow]: null };

/**
 * Connects to the database at `url` and migrates it to the latest schema under an advisory
 * lock, so instances started together do not race. Rejects with StoreUnavailableError when
 * the database cannot be reached (the message names host and database, never the password),
 * with another Error when it refuses (authentication, no such database, a newer schema).
 */
export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<Store> {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  // The migration's own connection, its statements unbounded (rebuilding an index takes what
  // the table's size takes), once the database has answered within the connect time-out.
  const setup = createPool(url, { poolSize: 1, connectTimeoutMs });
  setup.on("error", () => undefined);
  try {
    await probe(setup, connectTimeoutMs);
    await migrate(setup, lockTimeoutMs);
  } catch (error) {
    const reason = `cannot use PostgreSQL ${describeDatabase(url)}: ${reasonOf(error, url)}`;
    // A pooler refusing the password or the database says so with 08P01, a "connection
    // exception": at start that is a configuration fault, not a database out of reach. (While
    // serving, any 08 still makes the store unavailable: 503, and /readyz says so.)
    if (isUnreachable(error) && !isConfigurationRefusal(error)) {
      throw new StoreUnavailableError(reason, { cause: error });
    }
    throw new Error(reason, { cause: error });
  } finally {
    await setup.end().catch(() => undefined);
  }
  // Serving, a statement waits for a row lock at most the lock time-out (then fails, 55P03)
  // and does its work in far less than a second more: one left unanswered longer than both
  // time-outs together is a database that does not answer (gone behind a pooler that holds
  // the statement), and the request is answered 503 instead of waiting for the pooler.
  // pg's query_timeout closes the connection that did not answer, so nothing waits on it
  // (closing the pool, the process's exit). It costs pg more per row read: measured, a page
  // of 1,000 rows 0.3-0.5 ms (walking 100,000 changes 0.43 s against 0.3 s); a timer of our
  // own cost nothing per row but left the unanswered socket open until the pooler gave up.
  const waits = { lockTimeoutMs, connectTimeoutMs };
  const pool = createPool(url, {
    poolSize: options.poolSize ?? 10,
    connectTimeoutMs,
    statementTimeoutMs: statementBound(waits),
  });
  pool.on("error", (error) => {
    options.onConnectionError?.(reasonOf(error, url));
  });
  // A revision read that takes as long as connecting counts the database as unreachable.
  return new PostgresStore(pool, url, waits);
}

/** A row of the inventory snapshot: the revision, and an entry (null without pets). */
type SnapshotRow = { revision: bigint } & (
  InventoryRow | { id: null; quantity: null; status: null }
);

class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  readonly #url: string;
  readonly #groupCommit: GroupCommit;
  #closed = false;
  /**
   * The connection revision reads use, kept from one to the next: a read on a pool connection
   * cost the GET path the pool's bookkeeping. Dropped (and opened again by the next read) when
   * it fails; while it is held the pool has one connection fewer for everything else.
   */
  #revisionConnection: Promise<pg.PoolClient> | undefined;
  readonly #freshRevision = freshRead(() =>
    this.#guard(async () => {
      const connecting = this.#revisionClient();
      const client = await connecting;
      // GETs wait for these reads one after another: one that hangs (a connection lost
      // without a word) must not hold them all. pg gives a query up after `query_timeout`
      // ("Query read timeout", counted as unreachable) and, on a pipelined connection,
      // destroys the connection with it.
      try {
        const { rows } = await client.query<{ revision: bigint }>(
          timedStatement(SQL.revision, [], this.#readTimeoutMs),
        );
        return String(rows[0]?.revision ?? 0n);
      } catch (error) {
        this.#dropRevisionClient(connecting, client, error);
        throw error;
      }
    }),
  );

  readonly #readTimeoutMs: number;
  /** The seed's transaction's lock time-out (but for its wait for the seed lock). */
  readonly #lockTimeoutMs: number;

  constructor(pool: pg.Pool, url: string, waits: Waits) {
    this.#pool = pool;
    this.#url = url;
    this.#readTimeoutMs = waits.connectTimeoutMs;
    this.#lockTimeoutMs = waits.lockTimeoutMs;
    this.#groupCommit = new GroupCommit(pool, waits, (error, maybeCommitted) =>
      this.#unavailable(error, maybeCommitted),
    );
  }

  async listInventory(): Promise<InventorySnapshot> {
    const rows = await this.#read<SnapshotRow>("list");
    return {
      items: rows.flatMap((row) => (row.id === null ? [] : [toItem(row as InventoryRow)])),
      seq: rows[0]?.revision ?? 0n,
    };
  }

  async getInventoryItem(petId: bigint): Promise<{ item: InventoryItem; seq: bigint } | undefined> {
    const [row] = await this.#read<InventoryRow & { revision: bigint }>("item", [petId]);
    return row && { item: toItem(row), seq: row.revision };
  }

  async getPet(petId: bigint): Promise<Pet | undefined> {
    const [row] = await this.#read<PetRow>("pet", [petId]);
    return row && toPet(row);
  }

  async listOrders(): Promise<Order[]> {
    return (await this.#read<OrderRow>("orders")).map(toOrder);
  }

  /**
   * The committed count of inventory changes, including every write any instance
   * acknowledged before this call: from a read that starts after this call (calls made
   * together share one: fresh-read.ts).
   */
  revision(): Promise<string> {
    return this.#freshRevision();
  }

  async latestSeq(): Promise<bigint> {
    const [row] = await this.#read<{ revision: bigint }>("revision");
    return row?.revision ?? 0n;
  }

  async ping(): Promise<void> {
    await this.#read("revision");
  }

  async purgeIdempotencyRecords(before: number, limit: number): Promise<number> {
    const result = await this.#guard(() =>
      run(this.#pool, "purgeKeys", [Math.floor(before), limit]),
    );
    return result.rowCount ?? 0;
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
    if (this.#closed) throw new Error("the store is closed");
    checkQuantity(quantity);
    return asUpdateResult(await this.#commit({ kind: "update", petId, quantity, options }));
  }

  /** A batch joins the group commit as one write: one transaction, all of it or none. */
  async applyBatch(batch: BatchWrite, options: BatchOptions = {}): Promise<BatchResult> {
    if (this.#closed) throw new Error("the store is closed");
    return asBatchResult(await this.#commit({ kind: "batch", batch, options }));
  }

  /**
   * A write through the group commit. One PostgreSQL refused for lack of disk space (its
   * transaction rolled back; a group is tried again write by write, so one that fits still
   * commits) rejects with StoreFullError.
   */
  async #commit(write: PlannedWrite): Promise<PlannedResult> {
    try {
      return await this.#groupCommit.write(write);
    } catch (error) {
      if (!isDiskFull(error)) throw error;
      throw new StoreFullError(
        `PostgreSQL ${describeDatabase(this.#url)} is out of disk space: ${reasonOf(error, this.#url)}`,
        { cause: error },
      );
    }
  }

  async listChanges(petId: bigint, limit: number): Promise<FeedRecord[] | undefined> {
    const rows = await this.#read<HistoryRow>("changes", [petId, limit]);
    if (rows.length === 0) return undefined;
    return rows.flatMap((row) => (row.seq === null ? [] : [toFeedRecord(row)]));
  }

  /** Each row an array of its columns: pg's object per row cost a page of 1,000 about 0.25 ms. */
  async listFeed(after: bigint, limit: number): Promise<FeedRecord[]> {
    const { rows } = await this.#guard(() =>
      this.#pool.query<ChangeColumns>({ text: SQL.feed, values: [after, limit], rowMode: "array" }),
    );
    return rows.map(columnsToFeedRecord);
  }

  async seedIfEmpty(
    pets: readonly SeedPet[],
    orders: readonly Order[] = [],
    author: Pick<ChangeAuthor, "at" | "reason"> = unknownAuthor(),
  ): Promise<boolean> {
    const { client, release } = await this.#guard(() => checkOut(this.#pool));
    let failed: unknown;
    try {
      await beginTransaction(client, this.#lockTimeoutMs);
      // Instances started together with --seed: one seeds, the others wait for it however
      // long a seed of many pets takes, then find pets.
      await waitForAdvisoryLock(client, SEED_LOCK);
      const [count] = (await run<{ n: bigint }>(client, "count")).rows;
      if ((count?.n ?? 0n) > 0n) {
        await client.query("COMMIT");
        return false;
      }
      for (const pet of pets) {
        const lists = storedLists(pet);
        await run(client, "insertPet", [
          pet.id,
          pet.name,
          pet.status,
          pet.quantity,
          pet.category?.id ?? null,
          pet.category?.name ?? null,
          lists.photoUrls,
          lists.tags,
        ]);
      }
      await run(client, "seedChanges", [
        pets.map((pet) => pet.id),
        pets.map((pet) => pet.quantity),
        Math.floor(author.at),
        author.reason,
      ]);
      for (const order of orders) {
        await run(client, "insertOrder", [
          order.id,
          order.petId,
          order.quantity,
          order.shipDate,
          order.status,
          order.complete,
        ]);
      }
      await client.query("COMMIT");
      return true;
    } catch (error) {
      failed = error;
      await client.query("ROLLBACK").catch(() => undefined);
      if (isUnreachable(error)) throw this.#unavailable(error, false);
      if (isLockFailure(error)) {
        throw new StoreBusyError("another instance holds a lock on the pets", 0);
      }
      throw error;
    } finally {
      release(failed instanceof Error && isUnreachable(failed) ? failed : undefined);
    }
  }

  /** Commits the updates still pending, then closes every connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#groupCommit.drain();
    const connecting = this.#revisionConnection;
    const client = await connecting?.catch(() => undefined);
    if (connecting && client) this.#dropRevisionClient(connecting, client);
    await this.#pool.end();
  }

  /** The kept connection for revision reads, connecting it if there is none. */
  #revisionClient(): Promise<pg.PoolClient> {
    if (this.#revisionConnection) return this.#revisionConnection;
    const connecting = this.#pool.connect().then((client) => {
      // A kept connection has no pool listener: an error while it is idle would crash us.
      // It is told to the pool's listener, as an idle pool connection's is.
      client.on("error", (error) => {
        if (this.#revisionConnection === connecting) this.#pool.emit("error", error, client);
        this.#dropRevisionClient(connecting, client, error);
      });
      return client;
    });
    connecting.catch(() => {
      if (this.#revisionConnection === connecting) this.#revisionConnection = undefined;
    });
    this.#revisionConnection = connecting;
    return connecting;
  }

  /** Gives the kept connection back, closing it if `error` says it failed; at most once. */
  #dropRevisionClient(
    connecting: Promise<pg.PoolClient>,
    client: pg.PoolClient,
    error?: unknown,
  ): void {
    if (this.#revisionConnection !== connecting) return;
    this.#revisionConnection = undefined;
    client.release(error !== undefined);
  }

  async #read<R extends pg.QueryResultRow>(name: StatementName, values?: unknown[]): Promise<R[]> {
    return (await this.#guard(() => run<R>(this.#pool, name, values))).rows;
  }

  /** Runs `action`, turning a lost or refused connection into StoreUnavailableError. */
  async #guard<T>(action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      if (isUnreachable(error)) throw this.#unavailable(error, false);
      throw error;
    }
  }

  #unavailable(error: unknown, maybeCommitted: boolean): StoreUnavailableError {
    return new StoreUnavailableError(
      `PostgreSQL ${describeDatabase(this.#url)} is unreachable: ${reasonOf(error, this.#url)}`,
      { maybeCommitted, cause: error },
    );
  }
}
