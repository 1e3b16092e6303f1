/**
 * SIGINT and SIGTERM as commands see them. main.ts owns the real process signals and hands
 * each one to an Interrupts; a command that can stop cleanly (`inventory apply`: finish the
 * writes in flight, print its report) claims them while it runs. An unclaimed signal, or a
 * second one while claimed, ends the process at once with 130 or 143.
 */
import type { InterruptSignal } from "../exit-codes.js";

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

  /**
   * True once a claimed signal was delivered: the command stopped cleanly and printed its
   * report, and what it left (stdin still open, a request it no longer waits for) must not
   * keep the process alive.
   */
  get interrupted(): boolean {
    return this.#interrupted;
  }

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

/** What RunClaim.until throws when an interrupt comes before the work it waits for ends. */
export class RunInterrupted extends Error {
  readonly signal: InterruptSignal;

  constructor(signal: InterruptSignal) {
    super(`interrupted by ${signal}`);
    this.name = "RunInterrupted";
    this.signal = signal;
  }
}

/** The interrupts claimed for the whole of a command's run (`apply`, `adjust --file`). */
export interface RunClaim {
  /** The signal that interrupted the run, once one has. */
  signal: () => InterruptSignal | undefined;
  /**
   * Starts `work` and waits for it, unless an interrupt comes first (or came already: then
   * `work` does not start): throws RunInterrupted at once, and `work` is left to end unseen.
   * For the phases that change nothing (reading the file, fetching the stock).
   */
  until: <T>(work: () => Promise<T>) => Promise<T>;
  /** Gives the claim back. */
  release: () => void;
}

/**
 * Claims SIGINT/SIGTERM for a whole run: `onInterrupt` is told of the first (to say on stderr
 * what the run does now); a second still ends the process at once.
 */
export function claimRun(
  source: InterruptSource,
  onInterrupt: (signal: InterruptSignal) => void,
): RunClaim {
  let interruptedBy: InterruptSignal | undefined;
  const waiting = new Set<(signal: InterruptSignal) => void>();
  const release = source.claim((signal) => {
    interruptedBy = signal;
    onInterrupt(signal);
    for (const stop of [...waiting]) stop(signal);
  });
  return {
    signal: () => interruptedBy,
    async until(work) {
      if (interruptedBy !== undefined) throw new RunInterrupted(interruptedBy);
      let stop: (signal: InterruptSignal) => void = () => undefined;
      const interrupted = new Promise<never>((_resolve, reject) => {
        stop = (signal) => {
          reject(new RunInterrupted(signal));
        };
      });
      waiting.add(stop);
      try {
        // Promise.race handles `work`'s rejection too, even once the interrupt has won.
        return await Promise.race([work(), interrupted]);
      } finally {
        waiting.delete(stop);
      }
    },
    release,
  };
}
