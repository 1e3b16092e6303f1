/**
 * A server Timer (src/server/timer.ts) that moves only when the test moves it, as the SQLite
 * store's `now` does in sqlite/store.test.ts: a wait of the server's ends at the millisecond its
 * rule says, the test proves that exactly, and nothing sleeps for it.
 */
import type { Timer } from "../../src/server/timer.js";
import { eventually } from "./eventually.js";

interface Pause {
  endsAt: number;
  end(): void;
}

export class ManualTimer implements Timer {
  #now = 0;
  #pauses: Pause[] = [];
  /** Every pause asked for, in milliseconds, in the order asked. */
  readonly asked: number[] = [];

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.asked.push(ms);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const pause: Pause = {
        endsAt: this.#now + ms,
        end: () => {
          signal?.removeEventListener("abort", abort);
          resolve();
        },
      };
      const abort = () => {
        this.#pauses = this.#pauses.filter((other) => other !== pause);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener("abort", abort, { once: true });
      this.#pauses.push(pause);
    });
  }

  /** How many pauses are running now. */
  get pausing(): number {
    return this.#pauses.length;
  }

  /** Moves the clock `ms` on, ending every pause that is over by then. */
  advance(ms: number): void {
    this.#now += ms;
    const over = this.#pauses.filter((pause) => pause.endsAt <= this.#now);
    this.#pauses = this.#pauses.filter((pause) => pause.endsAt > this.#now);
    for (const pause of over) pause.end();
  }

  /**
   * Resolves once something pauses on this timer (`what`: whose pause, for the failure). The
   * code under test runs in this process: 5 s without a pause is a failure.
   */
  async paused(what: string): Promise<void> {
    await eventually(what, () => this.#pauses.length > 0, { timeoutMs: 5_000 });
  }

  /**
   * Waits for a pause, then moves the clock to the end of the earliest one (as a real clock
   * would reach it); resolves the time then.
   */
  async tick(what = "a pause"): Promise<number> {
    await this.paused(what);
    const next = Math.min(...this.#pauses.map((pause) => pause.endsAt));
    this.advance(next - this.#now);
    return this.#now;
  }
}
