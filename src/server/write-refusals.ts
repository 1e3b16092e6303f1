/**
 * The writes the server refuses with a 503, in one place: counted by reason on the metrics
 * (when on), and a full disk told to the log once per episode. The first write refused for
 * lack of space logs an error naming the database; the refusals after it add nothing to
 * their request lines (debug only); the first write that commits again ends the episode
 * with an info line. Per server process: each instance of a shared database tells its own.
 */
import type { FastifyBaseLogger } from "fastify";

/** Why a write was refused: the bounded `reason` label of `petstore_writes_refused_total`. */
export const WRITE_REFUSAL_REASONS = [
  /** The database's storage is full (503 `storage_full`). */
  "storage_full",
  /** Another process held the SQLite file's lock, or a row lock, past the time-out. */
  "busy",
  /** The database could not be reached (PostgreSQL down or the connection lost). */
  "unavailable",
] as const;
export type WriteRefusalReason = (typeof WRITE_REFUSAL_REASONS)[number];

/** What counts the refusals: ServerMetrics, when metrics are on (metrics.ts imports this file). */
export interface RefusalCounter {
  countRefusedWrite(reason: WriteRefusalReason): void;
}

export class WriteRefusals {
  readonly #metrics: RefusalCounter | undefined;
  /** Whether writes are being refused for lack of space: an episode is open. */
  #storageFull = false;

  constructor(metrics?: RefusalCounter) {
    this.#metrics = metrics;
  }

  /** A write refused for `reason`; `detail` (the store's message) is logged when an episode opens. */
  refused(reason: WriteRefusalReason, log: FastifyBaseLogger, detail: string): void {
    this.#metrics?.countRefusedWrite(reason);
    if (reason !== "storage_full") return;
    if (this.#storageFull) {
      log.debug({ reason: detail }, "write refused: storage still full");
      return;
    }
    this.#storageFull = true;
    log.error({ reason: detail }, "storage full: writes are refused until space is freed");
  }

  /** A write committed `changes` changes: a full-disk episode, if open, is over. */
  committed(changes: number, log: FastifyBaseLogger): void {
    if (changes === 0 || !this.#storageFull) return;
    this.#storageFull = false;
    log.info("storage has space again: writes resume");
  }
}
