/**
 * The one way a test waits for what another process, a socket or the event loop does: ask
 * again until it holds. The deadline only bounds a failure (and names it); what a test claims
 * is what `check` saw, never how long it took.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { inspect } from "node:util";

export interface EventuallyOptions {
  /** How long to keep asking before failing (default 10 s, inside vitest's 20 s). */
  timeoutMs?: number;
  /** The pause between two checks (default 10 ms). */
  intervalMs?: number;
}

/**
 * Resolves once `check` returns true. A check that throws counts as "not yet" (a server not
 * answering yet); past `timeoutMs` it rejects with an Error naming `what`, the time waited and
 * the last error thrown, if any.
 */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 10 }: EventuallyOptions = {},
): Promise<void> {
  const started = performance.now();
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    const waited = performance.now() - started;
    if (waited >= timeoutMs) {
      const why =
        lastError === undefined
          ? ""
          : `; the last check threw: ${lastError instanceof Error ? lastError.message : inspect(lastError)}`;
      throw new Error(`timed out after ${Math.round(waited)} ms waiting for ${what}${why}`, {
        cause: lastError,
      });
    }
    await sleep(intervalMs);
  }
}
