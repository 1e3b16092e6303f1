/**
 * A read whose answer is never older than the call: each call is answered by a read that
 * started after it. Calls share reads: one read is in flight at a time, and the next one
 * starts once the calls have stopped coming in (a turn of the event loop passes without a new
 * one, or MAX_TURNS_GATHERING turns have passed) and the read in flight has ended. A read
 * costs the database a round trip whatever it answers (on one core, two process switches), so
 * under load one read answers a wave of requests; alone, a call waits one turn of the event
 * loop more than its read takes. Measured on PostgreSQL (BENCHMARKS.md): a read per turn was
 * one per 3 to 5 GETs under load, this one per 5 to 8.
 */
export function freshRead<T>(read: () => Promise<T>): () => Promise<T> {
  /** The calls for the next read, which has not started. */
  let waiting: Calls<T> | undefined;
  /** Whether the next read's calls are done gathering (it starts when no read is in flight). */
  let gathered = false;
  let inFlight = false;
  let calledThisTurn = false;
  let turnsWaited = 0;

  const startIfDue = () => {
    const calls = waiting;
    if (inFlight || !gathered || !calls) return;
    waiting = undefined;
    inFlight = true;
    const ended = () => {
      inFlight = false;
      startIfDue();
    };
    Promise.resolve()
      .then(read)
      .then(
        (value) => {
          calls.resolve(value);
          ended();
        },
        (error: unknown) => {
          calls.reject(error);
          ended();
        },
      );
  };
  const afterTurn = () => {
    if (calledThisTurn && turnsWaited < MAX_TURNS_GATHERING) {
      calledThisTurn = false;
      turnsWaited++;
      setImmediate(afterTurn);
      return;
    }
    gathered = true;
    startIfDue();
  };

  return () => {
    if (!waiting) {
      waiting = gather<T>();
      gathered = false;
      turnsWaited = 0;
      setImmediate(afterTurn);
    }
    calledThisTurn = true;
    return waiting.promise;
  };
}

/** How many turns of the event loop a read waits, at most, for more calls to share it. */
export const MAX_TURNS_GATHERING = 4;

interface Calls<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

/** Promise.withResolvers, which Node.js 20 lacks. */
function gather<T>(): Calls<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((onValue, onError) => {
    resolve = onValue;
    reject = onError;
  });
  return { promise, resolve, reject };
}
