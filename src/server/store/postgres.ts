/**
 * The shared store: PostgreSQL through `pg`, for several `petstore serve` instances on one
 * database. Every write is committed (synchronous_commit on) before it is answered; a
 * conditional write is one UPDATE; idempotency records are kept in the write's transaction;
 * `revision()` reads a counter raised in every change's transaction, so every instance sees
 * every other's acknowledged writes.
 */
import type pg from "pg";
import type { InventoryItem, Order, OrderStatus, Pet, PetStatus } from "../../api/types.js";
import { storedLists, toPet, type PetRow } from "./pet-record.js";
import { freshRead } from "./fresh-read.js";
import { POSTGRES_MIGRATIONS } from "./postgres-migrations.js";
import {
  createPool,
  describeDatabase,
  isLockFailure,
  isUnreachable,
  reasonOf,
} from "./postgres-connection.js";
import { DEFAULT_LOCK_TIMEOUT_MS } from "./sqlite-lock.js";
import {
  IDEMPOTENCY_TTL_MS,
  type IdempotencyClaim,
  type SeedPet,
  type Store,
  type UpdateOptions,
  type UpdateResult,
  type WriteOutcome,
} from "./store.js";
import { StoreBusyError } from "./store-busy-error.js";
import { StoreUnavailableError } from "./store-unavailable-error.js";

export interface PostgresStoreOptions {
  /** Connections at most (default 10): the writer uses one at a time, reads the rest. */
  poolSize?: number;
  /** How long a write waits for a row another instance holds before answering `busy` (5 s). */
  lockTimeoutMs?: number;
  /** How long opening a connection may take before the database counts as unreachable (5 s). */
  connectTimeoutMs?: number;
  /** Told when an idle connection fails (the pool drops it and opens another when needed). */
  onConnectionError?: (message: string) => void;
}

/** The key of the advisory lock that serializes migrations of instances started together. */
const MIGRATION_LOCK = "7310593858348875621";
/** The key of the advisory lock that serializes seeding, so only one instance seeds. */
const SEED_LOCK = "7310593858348875622";
/** Updates written in one transaction at most. */
const MAX_BATCH = 256;

interface InventoryRow {
  id: bigint;
  quantity: number;
  status: PetStatus;
}

interface OrderRow {
  id: bigint;
  pet_id: bigint;
  quantity: number;
  ship_date: string;
  status: OrderStatus;
  complete: boolean;
}

interface IdempotencyRow {
  fingerprint: string;
  status: number;
  body: string;
  etag: string | null;
}

/** An update waiting for the next group commit. */
interface PendingUpdate {
  petId: bigint;
  quantity: number;
  options: UpdateOptions;
  resolve: (result: UpdateResult) => void;
  reject: (error: unknown) => void;
}

/** Named statements: each connection prepares one the first time it runs it. */
const SQL = {
  list: "SELECT id, quantity, status FROM pets ORDER BY id",
  item: "SELECT id, quantity, status FROM pets WHERE id = $1",
  update: "UPDATE pets SET quantity = $2 WHERE id = $1 RETURNING id, quantity, status",
  updateIf:
    "UPDATE pets SET quantity = $2 WHERE id = $1 AND quantity = ANY ($3::integer[]) RETURNING id, quantity, status",
  bump: "UPDATE inventory_revision SET revision = revision + 1 WHERE id = 1",
  revision: "SELECT revision FROM inventory_revision WHERE id = 1",
  // Claims a key: a new record, or an expired one taken over. A claim of the same key by
  // another transaction waits here until this one ends, then finds the record.
  claimKey: `INSERT INTO idempotency_keys (owner, key, fingerprint, created_at, status, body, etag)
    VALUES ($1, $2, $3, $4, 0, '', NULL)
    ON CONFLICT (owner, key) DO UPDATE
      SET fingerprint = excluded.fingerprint, created_at = excluded.created_at, status = 0, body = '', etag = NULL
      WHERE idempotency_keys.created_at <= $5
    RETURNING 1 AS claimed`,
  findKey:
    "SELECT fingerprint, status, body, etag FROM idempotency_keys WHERE owner = $1 AND key = $2",
  saveKey:
    "UPDATE idempotency_keys SET status = $3, body = $4, etag = $5 WHERE owner = $1 AND key = $2",
  purgeKeys: `DELETE FROM idempotency_keys WHERE (owner, key) IN
    (SELECT owner, key FROM idempotency_keys WHERE created_at < $1 ORDER BY created_at LIMIT $2
     FOR UPDATE SKIP LOCKED)`,
  pet: "SELECT id, name, status, category_id, category_name, photo_urls, tags FROM pets WHERE id = $1",
  orders: "SELECT id, pet_id, quantity, ship_date, status, complete FROM orders ORDER BY id",
  count: "SELECT count(*) AS n FROM pets",
  insertPet: `INSERT INTO pets (id, name, status, quantity, category_id, category_name, photo_urls, tags)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  insertOrder:
    "INSERT INTO orders (id, pet_id, quantity, ship_date, status, complete) VALUES ($1, $2, $3, $4, $5, $6)",
} as const;

type StatementName = keyof typeof SQL;

const toItem = (row: InventoryRow): InventoryItem => ({
  petId: row.id,
  quantity: row.quantity,
  status: row.status,
});

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
  const pool = createPool(url, {
    poolSize: options.poolSize ?? 10,
    lockTimeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
  });
  pool.on("error", (error) => {
    options.onConnectionError?.(reasonOf(error, url));
  });
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    const reason = `cannot use PostgreSQL ${describeDatabase(url)}: ${reasonOf(error, url)}`;
    if (isUnreachable(error)) throw new StoreUnavailableError(reason, { cause: error });
    throw new Error(reason, { cause: error });
  }
  return new PostgresStore(pool, url);
}

async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  let failed: unknown;
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query("CREATE TABLE IF NOT EXISTS petstore_schema (version integer NOT NULL)");
    const rows = (await client.query<{ version: number }>("SELECT version FROM petstore_schema"))
      .rows;
    const current = rows[0]?.version ?? 0;
    if (current > POSTGRES_MIGRATIONS.length) {
      throw new Error(
        `database schema version ${current} is newer than this petstore supports (${POSTGRES_MIGRATIONS.length})`,
      );
    }
    if (rows.length === 0) await client.query("INSERT INTO petstore_schema (version) VALUES (0)");
    for (let version = current; version < POSTGRES_MIGRATIONS.length; version++) {
      await client.query(POSTGRES_MIGRATIONS[version] ?? "");
    }
    await client.query("UPDATE petstore_schema SET version = $1", [POSTGRES_MIGRATIONS.length]);
    await client.query("COMMIT");
  } catch (error) {
    failed = error;
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release(failed instanceof Error && isUnreachable(failed) ? failed : undefined);
  }
}

/** Runs a named statement on a client or the pool. */
function run<R extends pg.QueryResultRow>(
  on: pg.Pool | pg.PoolClient,
  name: StatementName,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  return on.query<R>({ name, text: SQL[name], values });
}

class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  readonly #url: string;
  #pending: PendingUpdate[] = [];
  /** The group commit running now, if any; updates arriving meanwhile wait for the next. */
  #writing: Promise<void> | undefined;
  #closed = false;
  readonly #freshRevision = freshRead(async () => {
    const [row] = await this.#read<{ revision: bigint }>("revision");
    return String(row?.revision ?? 0n);
  });

  constructor(pool: pg.Pool, url: string) {
    this.#pool = pool;
    this.#url = url;
  }

  async listInventory(): Promise<InventoryItem[]> {
    return (await this.#read<InventoryRow>("list")).map(toItem);
  }

  async getInventoryItem(petId: bigint): Promise<InventoryItem | undefined> {
    const [row] = await this.#read<InventoryRow>("item", [petId]);
    return row && toItem(row);
  }

  async getPet(petId: bigint): Promise<Pet | undefined> {
    const [row] = await this.#read<PetRow>("pet", [petId]);
    return row && toPet(row);
  }

  async listOrders(): Promise<Order[]> {
    return (await this.#read<OrderRow>("orders")).map((row) => ({
      id: row.id,
      petId: row.pet_id,
      quantity: row.quantity,
      shipDate: row.ship_date,
      status: row.status,
      complete: row.complete,
    }));
  }

  /**
   * The committed count of inventory changes, from a read that starts after this call, so it
   * includes every write any instance acknowledged before; concurrent calls share reads.
   */
  revision(): Promise<string> {
    return this.#freshRevision();
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
   * Group commit: updates that arrive while a commit is in flight are written together in
   * the next transaction, one after the other, each seeing the ones before it; each promise
   * settles once its transaction has committed.
   */
  updateQuantity(
    petId: bigint,
    quantity: number,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    if (this.#closed) return Promise.reject(new Error("the store is closed"));
    return new Promise((resolve, reject) => {
      this.#pending.push({ petId, quantity, options, resolve, reject });
      if (!this.#writing) this.#writing = this.#writeAll();
    });
  }

  async #writeAll(): Promise<void> {
    // Updates made in the same turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, MAX_BATCH);
      await this.#commitBatch(batch);
    }
    this.#writing = undefined;
  }

  async #commitBatch(batch: readonly PendingUpdate[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      for (const update of batch) update.reject(this.#unavailable(error, false));
      return;
    }
    let commitSent = false;
    try {
      await client.query("BEGIN");
      const results: UpdateResult[] = [];
      for (const update of batch) results.push(await this.#apply(client, update));
      if (results.some((result) => result.kind === "updated")) await run(client, "bump");
      commitSent = true;
      await client.query("COMMIT");
      client.release();
      batch.forEach((update, index) => {
        update.resolve(results[index] ?? { kind: "busy" });
      });
      return;
    } catch (error) {
      if (isUnreachable(error)) {
        client.release(error as Error);
        for (const update of batch) update.reject(this.#unavailable(error, commitSent));
        return;
      }
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
    }
    // One bad update (an out-of-range quantity), a lock time-out or a deadlock with another
    // instance: nothing of the batch was written. Each is tried again in its own transaction.
    for (const update of batch) await this.#commitOne(update);
  }

  async #commitOne(update: PendingUpdate): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      update.reject(this.#unavailable(error, false));
      return;
    }
    let commitSent = false;
    try {
      await client.query("BEGIN");
      const result = await this.#apply(client, update);
      if (result.kind === "updated") await run(client, "bump");
      commitSent = true;
      await client.query("COMMIT");
      client.release();
      update.resolve(result);
    } catch (error) {
      if (isUnreachable(error)) {
        client.release(error as Error);
        update.reject(this.#unavailable(error, commitSent));
        return;
      }
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
      if (isLockFailure(error)) update.resolve({ kind: "busy" });
      else update.reject(error);
    }
  }

  /**
   * One update inside the current transaction: the idempotency key first (a replay or a
   * reuse writes nothing), then the conditional write, then the key's answer.
   */
  async #apply(client: pg.PoolClient, update: PendingUpdate): Promise<UpdateResult> {
    const claim = update.options.idempotency;
    if (!claim) return this.#write(client, update);
    const claimed = await run(client, "claimKey", [
      claim.owner,
      claim.key,
      claim.fingerprint,
      Math.floor(claim.at),
      Math.floor(claim.at) - IDEMPOTENCY_TTL_MS,
    ]);
    if (claimed.rowCount === 0) return this.#kept(client, claim);
    const outcome = await this.#write(client, update);
    const response = claim.render(outcome);
    await run(client, "saveKey", [
      claim.owner,
      claim.key,
      response.status,
      response.body,
      response.etag,
    ]);
    return outcome;
  }

  /** What an unexpired record of the key says: a replay of its answer, or a reused key. */
  async #kept(client: pg.PoolClient, claim: IdempotencyClaim): Promise<UpdateResult> {
    const [record] = (await run<IdempotencyRow>(client, "findKey", [claim.owner, claim.key])).rows;
    if (!record || record.fingerprint !== claim.fingerprint) return { kind: "key_reused" };
    return {
      kind: "replayed",
      response: { status: record.status, body: record.body, etag: record.etag },
    };
  }

  /** The write as one atomic UPDATE; when it matched nothing, a read tells 404 from 412. */
  async #write(client: pg.PoolClient, update: PendingUpdate): Promise<WriteOutcome> {
    const { condition } = update.options;
    const conditional = condition?.kind === "quantity_in";
    const written = conditional
      ? await run<InventoryRow>(client, "updateIf", [
          update.petId,
          update.quantity,
          condition.quantities,
        ])
      : await run<InventoryRow>(client, "update", [update.petId, update.quantity]);
    const [row] = written.rows;
    if (row) return { kind: "updated", item: toItem(row) };
    if (!conditional) return { kind: "not_found" };
    const [current] = (await run<InventoryRow>(client, "item", [update.petId])).rows;
    return current
      ? { kind: "precondition_failed", current: toItem(current) }
      : { kind: "not_found" };
  }

  async seedIfEmpty(pets: readonly SeedPet[], orders: readonly Order[] = []): Promise<boolean> {
    const client = await this.#guard(() => this.#pool.connect());
    let failed: unknown;
    try {
      await client.query("BEGIN");
      // Instances started together with --seed: one seeds, the others find pets.
      await client.query("SELECT pg_advisory_xact_lock($1)", [SEED_LOCK]);
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
      await run(client, "bump");
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
      client.release(failed instanceof Error && isUnreachable(failed) ? failed : undefined);
    }
  }

  /** Commits the updates still pending, then closes every connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writing;
    await this.#pool.end();
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
