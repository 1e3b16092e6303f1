/**
 * SIGINT and SIGTERM as commands see them. main.ts owns the real process signals and hands
 * each one to an Interrupts; a command that can stop cleanly (`inventory apply`: finish the
 * writes in flight, print its report) claims them while it runs. An unclaimed signal, or a
 * second one while claimed, ends the process at once with 130 or 143.
 */
import type { InterruptSignal } from "../errors.js";

/** What commands get (Deps.interrupts): a way to take an interruption over. */
export interface InterruptSource {
  /**
   * Claims SIGINT/SIGTERM: the first one calls `onInterrupt` instead of ending the process;
   * a second one still ends it at once. Returns the function that gives the claim back.
   */
  claim(onInterrupt: (signal: InterruptSignal) => void): () => void;
}

/** A source that never fires (in-process runs that have no signals to hand over). */
export const NO_INTERRUPTS: InterruptSource = { claim: () => () => undefined };

/** How a delivered signal was taken. */
export type Delivery =
  /** a command claimed it and is stopping cleanly */
  | "claimed"
  /** a command had claimed an earlier one: end at once */
  | "again"
  /** no command claimed it: end at once, unless something else handles it */
  | "unclaimed";

/** The interruptions of one process: main.ts delivers signals, commands claim them. */
export class Interrupts implements InterruptSource {
  readonly #claims = new Set<(signal: InterruptSignal) => void>();
  #interrupted = false;

  claim(onInterrupt: (signal: InterruptSignal) => void): () => void {
    this.#claims.add(onInterrupt);
    return () => {
      this.#claims.delete(onInterrupt);
    };
  }

  /** Hands a signal to the commands that claimed it, and says what the process should do. */
  deliver(signal: InterruptSignal): Delivery {
    if (this.#claims.size === 0) return "unclaimed";
    if (this.#interrupted) return "again";
    this.#interrupted = true;
    for (const onInterrupt of [...this.#claims]) onInterrupt(signal);
    return "claimed";
  }
}
