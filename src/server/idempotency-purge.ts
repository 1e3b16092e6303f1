/** Deletes expired idempotency records in the background, in small batches. */
import { setImmediate as nextTurn } from "node:timers/promises";
import { IDEMPOTENCY_TTL_MS, type Store } from "./store/store.js";

export interface PurgeOptions {
  /** Wall clock in Unix milliseconds. */
  now: () => number;
  /** How often a purge runs; default a minute. */
  intervalMs?: number;
  /** Records deleted per transaction; default 500, a write of a few milliseconds. */
  batchSize?: number;
  /** Told about a purge that failed (a lock held elsewhere past the time-out); the next one retries. */
  onError?: (error: unknown) => void;
}

export interface IdempotencyPurge {
  /** Deletes every record expired at `now()`, batch by batch; resolves how many. */
  runOnce(): Promise<number>;
  /** Stops the timer; resolves once a purge under way has finished its current batch. */
  stop(): Promise<void>;
}

/**
 * Starts purging records older than IDEMPOTENCY_TTL_MS every `intervalMs`. Each batch is its
 * own short transaction and the event loop turns between batches, so requests (and their
 * group commits) interleave with a long purge instead of waiting for it. The timer is unref'd:
 * it never keeps a process alive.
 */
export function startIdempotencyPurge(store: Store, options: PurgeOptions): IdempotencyPurge {
  const batchSize = options.batchSize ?? 500;
  let stopped = false;
  let running: Promise<number> | undefined;

  const purgeAll = async (): Promise<number> => {
    const before = options.now() - IDEMPOTENCY_TTL_MS;
    let total = 0;
    while (!stopped) {
      const deleted = await store.purgeIdempotencyRecords(before, batchSize);
      total += deleted;
      if (deleted < batchSize) break;
      await nextTurn();
    }
    return total;
  };
  const runOnce = (): Promise<number> => {
    running ??= purgeAll().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    runOnce().catch((error: unknown) => options.onError?.(error));
  }, options.intervalMs ?? 60_000).unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
