/**
 * The one way a test waits for what another process, a socket or the event loop does: ask
 * again until it holds. The deadline only bounds a failure (and names it); what a test claims
 * is what `check` saw, never how long it took.
 */
import { setTimeout as sleep } from "node:timers/promises";

export interface EventuallyOptions {
  /** How long to keep asking before failing (default 10 s, inside vitest's 20 s). */
  timeoutMs?: number;
  /** The pause between two checks (default 10 ms). */
  intervalMs?: number;
}

/**
 * Resolves once `check` returns true; rejects with an Error naming `what` and the time waited
 * once `timeoutMs` has passed without it. A check that throws fails the wait at once (an
 * assertion inside it is never retried away).
 */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 10 }: EventuallyOptions = {},
): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    const waited = performance.now() - started;
    if (waited >= timeoutMs) {
      throw new Error(`timed out after ${Math.round(waited)} ms waiting for ${what}`);
    }
    await sleep(intervalMs);
  }
}
