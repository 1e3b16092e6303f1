/**
 * The SQLite store's writes: group commit, and waiting for another process's lock. Writes
 * that arrive while the event loop is busy (often with the previous commit's fsync) are
 * committed in one transaction, so one fsync serves them all; each promise settles only after
 * its transaction has committed, so a 200 is on disk. While another process holds the write
 * lock, the writes wait (asynchronously) and later ones join them; each answers `busy` once it
 * has waited the lock time-out.
 */
import type { PlannedResult, PlannedWrite } from "../write-plan.js";
import { isBusy, retryPause } from "./lock.js";

/** Commits writes in one transaction, giving each one's result; throws when it could not. */
export type CommitWrites = (writes: readonly PlannedWrite[]) => PlannedResult[];

/** A write waiting for the next group commit. */
interface QueuedWrite {
  write: PlannedWrite;
  /** When it stops waiting for another process's lock and answers `busy` (`now()` clock). */
  deadline: number;
  resolve: (result: PlannedResult) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit {
  readonly #commit: CommitWrites;
  readonly #lockTimeoutMs: number;
  readonly #now: () => number;
  #queued: QueuedWrite[] = [];
  /** Whether a group commit is due on the next turn of the event loop. */
  #scheduled = false;
  /** Set while queued writes wait for another process's lock: the next attempt. */
  #retryTimer: NodeJS.Timeout | undefined;
  /** Failed attempts in a row, for the pause between them. */
  #retries = 0;

  constructor(commit: CommitWrites, lockTimeoutMs: number, now: () => number) {
    this.#commit = commit;
    this.#lockTimeoutMs = lockTimeoutMs;
    this.#now = now;
  }

  /** Queues `write` for the next group commit; settles once it committed (or answered busy). */
  write(write: PlannedWrite): Promise<PlannedResult> {
    return new Promise((resolve, reject) => {
      const deadline = this.#now() + this.#lockTimeoutMs;
      this.#queued.push({ write, deadline, resolve, reject });
      // While a retry is due, the write joins it instead.
      if (this.#scheduled || this.#retryTimer) return;
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.#commitQueued();
      });
    });
  }

  /**
   * Commits the writes still queued now; one that meets another process's lock answers `busy`
   * at once (nothing of it written) rather than holding up a close.
   */
  flush(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    for (const queued of this.#queued) queued.deadline = -Infinity;
    this.#commitQueued();
  }

  #commitQueued(): void {
    const batch = this.#queued;
    if (batch.length === 0) return;
    this.#queued = [];
    let locked: QueuedWrite[] = [];
    try {
      const results = this.#commit(batch.map((queued) => queued.write));
      batch.forEach((queued, index) => {
        settle(queued, results[index]);
      });
    } catch (error) {
      // BEGIN IMMEDIATE met another process's lock: nothing ran. Otherwise one bad write must
      // not fail the others: commit each on its own.
      locked = isBusy(error) ? batch : this.#commitOneByOne(batch);
    }
    this.#waitForLock(locked);
  }

  /** Commits each write in its own transaction; returns those left when one met a lock. */
  #commitOneByOne(batch: readonly QueuedWrite[]): QueuedWrite[] {
    for (const [index, queued] of batch.entries()) {
      try {
        settle(queued, this.#commit([queued.write])[0]);
      } catch (error) {
        // The rest wait too, so two writes of one pet still commit in order.
        if (isBusy(error)) return batch.slice(index);
        queued.reject(error);
      }
    }
    return [];
  }

  /**
   * Answers `busy` to the writes that met a lock and have waited their time-out (nothing of
   * theirs was written), and tries the others again after a short pause, ahead of the writes
   * that arrive meanwhile.
   */
  #waitForLock(locked: readonly QueuedWrite[]): void {
    const now = this.#now();
    const waiting: QueuedWrite[] = [];
    for (const queued of locked) {
      if (now >= queued.deadline) queued.resolve({ kind: "busy" });
      else waiting.push(queued);
    }
    const [first] = waiting;
    if (!first) {
      this.#retries = 0;
      return;
    }
    this.#queued = [...waiting, ...this.#queued];
    // The last attempt is made right at the first deadline, not up to a pause after it.
    const delay = Math.min(retryPause(this.#retries++), first.deadline - now);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#commitQueued();
    }, delay);
  }
}

function settle(queued: QueuedWrite, result: PlannedResult | undefined): void {
  if (result) queued.resolve(result);
  else queued.reject(new Error("the commit gave no result for a write"));
}
