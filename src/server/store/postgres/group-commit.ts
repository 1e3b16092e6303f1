/**
 * The PostgreSQL store's writes: group commit. Writes that arrive while a batch commits are
 * written together in the next transaction (write-batch.ts), one batch at a time, so writes
 * apply in arrival order. One batch at a time measured better than several in flight
 * on their own connections: fewer, larger batches cost the database less per update (its cost
 * is mostly per commit), and the throughput was no lower.
 */
import type pg from "pg";
import { petIdsOf, sizeOf, type PlannedResult, type PlannedWrite } from "../write-plan.js";
import { writeBatch, type BatchProgress } from "./write-batch.js";
import {
  checkOut,
  isDeadlock,
  isLockFailure,
  isUnreachable,
  type CheckedOut,
  type Waits,
} from "./connection.js";

/**
 * Entry changes committed in one transaction at most, unless one write (a batch of changes)
 * holds more: it is never split.
 */
const MAX_BATCH = 256;
/** Attempts of a batch that PostgreSQL aborted to break a deadlock (another program's locks). */
const DEADLOCK_ATTEMPTS = 3;

/** A write waiting for the next group commit. */
interface PendingUpdate {
  write: PlannedWrite;
  resolve: (result: PlannedResult) => void;
  reject: (error: unknown) => void;
}

/** How one attempt at a batch ended. */
type Attempt =
  | { kind: "committed"; results: PlannedResult[] }
  | { kind: "unavailable"; error: unknown; maybeCommitted: boolean }
  | { kind: "failed"; error: unknown };

/** Makes the error a write rejects with when the database cannot be reached. */
export type Unavailable = (error: unknown, maybeCommitted: boolean) => Error;

/** Commits writes in group commits on connections of `pool`. */
export class GroupCommit {
  readonly #pool: pg.Pool;
  /** How long a transaction waits for a row another instance holds, and for an answer. */
  readonly #waits: Waits;
  readonly #unavailable: Unavailable;
  #pending: PendingUpdate[] = [];
  /** The group commits running now, if any; writes arriving meanwhile join the next. */
  #writing: Promise<void> | undefined;

  constructor(pool: pg.Pool, waits: Waits, unavailable: Unavailable) {
    this.#pool = pool;
    this.#waits = waits;
    this.#unavailable = unavailable;
  }

  /** Queues a write for the next group commit; settles once its transaction committed. */
  write(write: PlannedWrite): Promise<PlannedResult> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ write, resolve, reject });
      this.#writing ??= this.#writeAll();
    });
  }

  /** Resolves once every write queued so far has settled. */
  async drain(): Promise<void> {
    await this.#writing;
  }

  async #writeAll(): Promise<void> {
    // Updates made in the same turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#pending.length > 0) {
      await this.#commit(this.#pending.splice(0, this.#nextBatchLength()));
    }
    this.#writing = undefined;
  }

  /** How many pending writes the next transaction takes: MAX_BATCH changes, at least one write. */
  #nextBatchLength(): number {
    let changes = 0;
    let length = 0;
    for (const pending of this.#pending) {
      changes += sizeOf(pending.write);
      if (length > 0 && changes > MAX_BATCH) break;
      length++;
    }
    return length;
  }

  async #commit(batch: readonly PendingUpdate[]): Promise<void> {
    const attempt = await this.#attempt(batch.map((pending) => pending.write));
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
      const petIds = petIdsOf([update.write]);
      if (petIds.some((petId) => busyPets.has(petId))) {
        update.resolve({ kind: "busy" });
        continue;
      }
      const alone = await this.#attempt([update.write]);
      if (alone.kind === "failed" && isLockFailure(alone.error)) {
        for (const petId of petIds) busyPets.add(petId);
      }
      this.#settle([update], alone);
    }
  }

  /** Settles the updates of an attempt: results, 503s, `busy` past a lock, or the error. */
  #settle(batch: readonly PendingUpdate[], attempt: Attempt): void {
    switch (attempt.kind) {
      case "committed":
        batch.forEach((update, index) => {
          const result = attempt.results[index];
          if (result) update.resolve(result);
          else update.reject(new Error("the batch gave no result for an update"));
        });
        return;
      case "unavailable": {
        const error = this.#unavailable(attempt.error, attempt.maybeCommitted);
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
  async #attempt(updates: readonly PlannedWrite[]): Promise<Attempt> {
    for (let attempt = 1; ; attempt++) {
      const ended = await this.#attemptOnce(updates);
      if (ended.kind !== "failed" || !isDeadlock(ended.error) || attempt >= DEADLOCK_ATTEMPTS) {
        return ended;
      }
    }
  }

  async #attemptOnce(updates: readonly PlannedWrite[]): Promise<Attempt> {
    let checkedOut: CheckedOut;
    try {
      checkedOut = await checkOut(this.#pool);
    } catch (error) {
      return { kind: "unavailable", error, maybeCommitted: false };
    }
    const { client } = checkedOut;
    const progress: BatchProgress = { commitSent: false };
    try {
      const results = await writeBatch(client, updates, progress, this.#waits);
      checkedOut.release();
      return { kind: "committed", results };
    } catch (error) {
      if (isUnreachable(error)) {
        checkedOut.release(error as Error);
        return { kind: "unavailable", error, maybeCommitted: progress.commitSent };
      }
      // Ends a transaction that failed before its COMMIT was sent (after, the pipelined
      // COMMIT has rolled it back already; outside one, this is a no-op).
      await client.query("ROLLBACK").catch(() => undefined);
      checkedOut.release();
      return { kind: "failed", error };
    }
  }
}
