/**
 * What `inventory apply` and `inventory adjust --file` share around a run: SIGINT and SIGTERM
 * claimed for the whole of it (reading, preparing, sending), so that an interrupt at any point
 * ends with the report; the notice an interrupt prints at once; the progress bar stopped.
 */
import type { ApplyProgress } from "../../output/apply-progress.js";
import { interruptNotice } from "../../output/not-attempted.js";
import type { CommandContext } from "../../program/factory.js";
import { claimRun, type RunClaim } from "../../program/interrupts.js";

/** What the run tells its interrupt handler: whether it is sending yet, and its bar. */
export interface BulkRunState {
  sending: boolean;
  progress?: ApplyProgress;
}

/**
 * Runs `body` with the interrupts claimed. `whileSending` is what the notice says an interrupt
 * does once changes are being sent (before that, nothing has been sent and the run stops).
 */
export async function withRunClaimed(
  context: CommandContext,
  whileSending: string,
  body: (run: RunClaim, state: BulkRunState) => Promise<void>,
): Promise<void> {
  const state: BulkRunState = { sending: false };
  const run = claimRun(context.interrupts, (signal) => {
    state.progress?.stop();
    context.io.err.write(interruptNotice(signal, state.sending ? whileSending : undefined));
  });
  try {
    await body(run, state);
  } finally {
    run.release();
    state.progress?.stop();
  }
}
