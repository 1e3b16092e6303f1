/**
 * The PostgreSQL store's writes: group commit. Updates that arrive while a batch commits are
 * written together in the next transaction (postgres-batch.ts), one batch at a time, so
 * updates apply in arrival order. One batch at a time measured better than several in flight
 * on their own connections: fewer, larger batches cost the database less per update (its cost
 * is mostly per commit), and the throughput was no lower.
 */
import type pg from "pg";
import type { UpdateOptions, UpdateResult } from "./store.js";
import type { BatchUpdate } from "./batch-plan.js";
import { writeBatch, type BatchProgress } from "./postgres-batch.js";
import type { Announcement } from "./postgres-lease.js";
import { isDeadlock, isLockFailure, isUnreachable } from "./postgres-connection.js";

/** Updates written in one transaction at most. */
const MAX_BATCH = 256;
/** Attempts of a batch that PostgreSQL aborted to break a deadlock (another program's locks). */
const DEADLOCK_ATTEMPTS = 3;
/** The largest quantity the `pets.quantity` column (integer) holds. */
const MAX_QUANTITY = 2_147_483_647;

/** An update waiting for the next group commit. */
interface PendingUpdate extends BatchUpdate {
  resolve: (result: UpdateResult) => void;
  reject: (error: unknown) => void;
}

/** How one attempt at a batch ended. */
type Attempt =
  | { kind: "committed"; results: UpdateResult[]; announcement: Announcement | undefined }
  | { kind: "unavailable"; error: unknown; maybeCommitted: boolean }
  | { kind: "failed"; error: unknown };

export interface WriterHooks {
  /** This instance's name among those holding cache leases (postgres-lease.ts). */
  instanceId: string;
  /** Makes the error a write rejects with when the database cannot be reached. */
  unavailable: (error: unknown, maybeCommitted: boolean) => Error;
  /**
   * Told of each committed revision at once; the batch's updates settle when it resolves
   * (once the other instances know the revision), while the next batch goes on.
   */
  committed: (announcement: Announcement) => Promise<void>;
}

/** Writes updates in group commits on connections of `pool`. */
export class PostgresWriter {
  readonly #pool: pg.Pool;
  readonly #hooks: WriterHooks;
  #pending: PendingUpdate[] = [];
  /** The group commits running now, if any; updates arriving meanwhile join the next. */
  #writing: Promise<void> | undefined;
  /** Committed batches waiting for the other instances before they settle. */
  readonly #announcing = new Set<Promise<void>>();

  constructor(pool: pg.Pool, hooks: WriterHooks) {
    this.#pool = pool;
    this.#hooks = hooks;
  }

  /**
   * Queues an update for the next group commit; settles once its transaction committed and
   * the other instances holding cache leases know it (or a lease has passed). An out-of-range
   * quantity is refused here, so it never fails the batch it would join.
   */
  write(petId: bigint, quantity: number, options: UpdateOptions): Promise<UpdateResult> {
    if (!Number.isInteger(quantity) || quantity < 0 || quantity > MAX_QUANTITY) {
      return Promise.reject(
        new RangeError(`quantity ${quantity} is out of range (0 to ${MAX_QUANTITY})`),
      );
    }
    return new Promise((resolve, reject) => {
      this.#pending.push({ petId, quantity, options, resolve, reject });
      this.#writing ??= this.#writeAll();
    });
  }

  /** Resolves once every update queued so far has settled. */
  async drain(): Promise<void> {
    await this.#writing;
    await Promise.all(this.#announcing);
  }

  async #writeAll(): Promise<void> {
    // Updates made in the same turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#pending.length > 0) {
      await this.#commit(this.#pending.splice(0, MAX_BATCH));
    }
    this.#writing = undefined;
  }

  async #commit(batch: readonly PendingUpdate[]): Promise<void> {
    const attempt = await this.#attempt(batch);
    if (attempt.kind !== "failed" || batch.length === 1) {
      this.#settle(batch, attempt);
      return;
    }
    // Nothing of the batch was written. One update PostgreSQL refused, or a row held by
    // another session past the lock time-out, must not fail the others: each alone, in order.
    const busyPets = new Set<bigint>();
    for (const update of batch) {
      // The entry stayed locked past the time-out for an update before this one: waiting
      // that long again for each would hold every later update up.
      if (busyPets.has(update.petId)) {
        update.resolve({ kind: "busy" });
        continue;
      }
      const alone = await this.#attempt([update]);
      if (alone.kind === "failed" && isLockFailure(alone.error)) busyPets.add(update.petId);
      this.#settle([update], alone);
    }
  }

  /** Settles the updates of an attempt: results, 503s, `busy` past a lock, or the error. */
  #settle(batch: readonly PendingUpdate[], attempt: Attempt): void {
    switch (attempt.kind) {
      case "committed": {
        const settle = () => {
          batch.forEach((update, index) => {
            const result = attempt.results[index];
            if (result) update.resolve(result);
            else update.reject(new Error("the batch gave no result for an update"));
          });
        };
        if (!attempt.announcement) {
          settle();
          return;
        }
        const announcing = this.#hooks.committed(attempt.announcement).then(settle, settle);
        this.#announcing.add(announcing);
        void announcing.finally(() => this.#announcing.delete(announcing));
        return;
      }
      case "unavailable": {
        const error = this.#hooks.unavailable(attempt.error, attempt.maybeCommitted);
        for (const update of batch) update.reject(error);
        return;
      }
      case "failed":
        for (const update of batch) {
          if (isLockFailure(attempt.error)) update.resolve({ kind: "busy" });
          else update.reject(attempt.error);
        }
    }
  }

  /** Commits `updates` in one transaction, tried again when PostgreSQL broke a deadlock. */
  async #attempt(updates: readonly BatchUpdate[]): Promise<Attempt> {
    for (let attempt = 1; ; attempt++) {
      const ended = await this.#attemptOnce(updates);
      if (ended.kind !== "failed" || !isDeadlock(ended.error) || attempt >= DEADLOCK_ATTEMPTS) {
        return ended;
      }
    }
  }

  async #attemptOnce(updates: readonly BatchUpdate[]): Promise<Attempt> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      return { kind: "unavailable", error, maybeCommitted: false };
    }
    const progress: BatchProgress = { commitSent: false };
    try {
      const { results, announcement } = await writeBatch(
        client,
        updates,
        progress,
        this.#hooks.instanceId,
      );
      client.release();
      return { kind: "committed", results, announcement };
    } catch (error) {
      if (isUnreachable(error)) {
        client.release(error as Error);
        return { kind: "unavailable", error, maybeCommitted: progress.commitSent };
      }
      // Ends a transaction that failed before its COMMIT was sent (after, the pipelined
      // COMMIT has rolled it back already; outside one, this is a no-op).
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
      return { kind: "failed", error };
    }
  }
}
