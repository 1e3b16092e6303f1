/**
 * Walking the change feed: page after page from a cursor, each page printed (and its cursor
 * saved) before the next is asked for. Following, it asks with a long poll, goes on until
 * interrupted, and rides out a server that goes away (a restart) by asking again, from the
 * last cursor, until it answers.
 */
import { backoffPause, type BackoffSteps } from "../api/backoff.js";
import { MAX_FEED_LIMIT } from "../api/limits.js";
import type { ChangeFeedPage } from "../api/types.js";
import { LASTING_NETWORK_FAILURES, RETRYABLE_STATUSES } from "../client/retry.js";
import { ApiError, NetworkError, type ClientFailure } from "../client/errors.js";
import type { InterruptSignal } from "../exit-codes.js";

/** How long a follower's request may wait for a new change (the server allows up to 60 s). */
export const FOLLOW_WAIT_SECONDS = 30;

/**
 * Following, after a page that was not full the next request starts no sooner than this
 * after the last one did. Caught up with a busy store, a follower then asks a few times a
 * second, each page holding the changes since, rather than once per change as fast as the
 * server answers (measured: a follower asking back-to-back took PATCH throughput to 0.36×;
 * paced it costs the server a few requests a second). A new change still shows within this
 * pace plus one request; a backlog is read at full speed in full pages.
 */
export const FOLLOW_PACE_MS = 250;

/** The pause between a follower's attempts to reach a server that went away. */
export const RECONNECT_BACKOFF: BackoffSteps = { baseMs: 500, maxMs: 5_000 };

/** One walk of the feed, and what it does with each page. */
export interface FeedWalk {
  /** The cursor to start after. */
  after: bigint;
  /** At most this many changes in all; undefined: every change there is (following: forever). */
  limit: number | undefined;
  /** Keep asking for new changes once caught up, with a long poll. */
  follow: boolean;
  fetchPage: (after: bigint, limit: number, waitSeconds: number) => Promise<ChangeFeedPage>;
  /** Prints a page (following, it may be empty) and saves its cursor; the walk waits for it. */
  onPage: (page: ChangeFeedPage) => Promise<void>;
  /** Following: settles with the signal that stops the walk (never settles when none comes). */
  interrupted?: Promise<InterruptSignal> | undefined;
  sleep: (ms: number) => Promise<void>;
  /** Monotonic clock in milliseconds, for the follower's pace. */
  now: () => number;
  /** Jitter source, in [0, 1). */
  random: () => number;
  /** Following: the server went away; said once per outage. */
  onLost?: ((error: ClientFailure) => void) | undefined;
  /** Following: the server answers again after an outage. */
  onBack?: ((after: bigint) => void) | undefined;
}

/** Where a walk stopped. */
export interface WalkEnd {
  /** The cursor after the last page printed. */
  after: bigint;
  /** How many changes were printed. */
  printed: number;
  /** The signal that stopped a follower; undefined when the walk ended by itself. */
  interruptedBy: InterruptSignal | undefined;
}

/**
 * A failure a follower waits out: no connection or no answer in time (not an untrusted
 * certificate, nor a plain HTTP server at an https URL), or a server busy or restarting (429,
 * 502, 503, 504), after the call's retries.
 */
export function isPassingFailure(error: unknown): error is ClientFailure {
  if (error instanceof NetworkError) return !LASTING_NETWORK_FAILURES.has(error.failure);
  return error instanceof ApiError && RETRYABLE_STATUSES.has(error.status);
}

type Raced<T> = { value: T; signal?: undefined } | { signal: InterruptSignal };

/** `work`, or the interrupt if it comes first (what `work` does after that is not awaited). */
function unlessInterrupted<T>(
  work: Promise<T>,
  interrupted: Promise<InterruptSignal>,
): Promise<Raced<T>> {
  return Promise.race([
    work.then((value) => ({ value })),
    interrupted.then((signal) => ({ signal })),
  ]);
}

const NEVER = new Promise<never>(() => undefined);

/**
 * Walks the feed from `walk.after`: pages of up to 1,000 changes (fewer when --limit leaves
 * fewer to print), each handed to onPage before the next is asked for. Without `follow` it
 * stops at the first page that is not full (the end of the feed, as it was then) or at the
 * limit; a failure is thrown. Following, every request waits up to FOLLOW_WAIT_SECONDS for a
 * change, a request after a page that was not full starts FOLLOW_PACE_MS after the last one
 * at the soonest, a passing failure is retried with a back-off until the server answers, and
 * the walk ends at the limit or when interrupted (the page being printed is finished first).
 */
export async function walkFeed(walk: FeedWalk): Promise<WalkEnd> {
  const interrupted = walk.interrupted ?? NEVER;
  let interruptedBy: InterruptSignal | undefined;
  void interrupted.then((signal) => (interruptedBy = signal));
  let after = walk.after;
  let printed = 0;
  const end = () => ({ after, printed, interruptedBy });
  const waitSeconds = walk.follow ? FOLLOW_WAIT_SECONDS : 0;
  let lost = false;
  let failures = 0;
  /** When the next request may start (`walk.now()` clock), following a page that was not full. */
  let notBefore = -Infinity;
  while (walk.limit === undefined || printed < walk.limit) {
    const limit = Math.min(MAX_FEED_LIMIT, (walk.limit ?? Infinity) - printed);
    const early = notBefore - walk.now();
    if (
      early > 0 &&
      (await unlessInterrupted(walk.sleep(early), interrupted)).signal !== undefined
    ) {
      return end();
    }
    const started = walk.now();
    let page: ChangeFeedPage;
    try {
      const answer = await unlessInterrupted(
        walk.fetchPage(after, limit, waitSeconds),
        interrupted,
      );
      if (answer.signal !== undefined) return end();
      page = answer.value;
    } catch (error) {
      // A request given up because of the interrupt fails: the interrupt is what ended it.
      if (interruptedBy !== undefined) return end();
      if (!walk.follow || !isPassingFailure(error)) throw error;
      if (!lost) walk.onLost?.(error);
      lost = true;
      failures += 1;
      const pause = backoffPause(RECONNECT_BACKOFF, failures, walk.random);
      if ((await unlessInterrupted(walk.sleep(pause), interrupted)).signal !== undefined) {
        return end();
      }
      continue;
    }
    if (lost) walk.onBack?.(after);
    lost = false;
    failures = 0;
    await walk.onPage(page);
    after = page.next;
    printed += page.changes.length;
    if (interruptedBy !== undefined) return end();
    if (page.changes.length < limit) {
      if (!walk.follow) break;
      notBefore = started + FOLLOW_PACE_MS;
    } else {
      notBefore = -Infinity;
    }
  }
  return end();
}
