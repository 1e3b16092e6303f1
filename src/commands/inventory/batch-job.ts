/**
 * The one batch job behind the bulk verbs (`inventory apply`, `inventory adjust --file`, and
 * every verb that sends many changes): SIGINT and SIGTERM claimed for the whole run, the rows
 * read and validated before anything is sent, the limits checked, the progress bar, the
 * batches sent (or another sender against a server without the batch endpoint), the report
 * written, and the exit decided. A verb supplies only what is its own: a BatchJob.
 */
import type { BatchRunReport, NoBatchRoute, RowAdapter } from "../../apply/batches.js";
import { reportBeforeSending, sendRows } from "../../apply/batches.js";
import type { RowFailure } from "../../apply/row-failure.js";
import type { BatchChange, BatchResponse } from "../../api/types.js";
import type { ApiClient } from "../../client/api-client.js";
import type { CliError } from "../../errors.js";
import type { InterruptSignal } from "../../exit-codes.js";
import { startApplyProgress, type ApplyProgress } from "../../output/apply-progress.js";
import { interruptNotice } from "../../output/not-attempted.js";
import type { CommandContext } from "../../program/factory.js";
import { claimRun, RunInterrupted, type RunClaim } from "../../program/interrupts.js";

/** Waits for a step that sends nothing; an interrupt during it ends the run with the report. */
export type BeforeSending = <T>(step: () => Promise<T>) => Promise<T>;

/** What a verb gives the batch job: its input, its rows, its words. */
export interface BatchJob<Input, Row, R extends { outcome: string }> {
  /** What the interrupt notice says an interrupt does once changes are being sent. */
  whileSending: string;
  dryRun: boolean;
  atomic: boolean;
  /** Whether a progress bar is drawn while sending (none for one request); default true. */
  progress?: boolean | undefined;
  /**
   * Reads and validates every input row; a bad one is a UsageError (nothing is sent). Reading
   * goes through `beforeSending`, so an interrupt then reports that the input was not read.
   */
  read(beforeSending: BeforeSending): Promise<Input[]>;
  /** Refuses (a UsageError) what no request should be sent for: checked before any is. */
  check?(inputs: readonly Input[]): void;
  /**
   * The rows to send, from the inputs (apply reads the stock and plans); undefined when there
   * is nothing to do. Requests made here go through `beforeSending` too.
   */
  prepare(
    inputs: Input[],
    client: ApiClient,
    beforeSending: BeforeSending,
  ): Promise<Row[] | undefined>;
  /**
   * A refusal of the prepared rows (apply's --max-changes): a real run throws it before
   * sending; a dry run shows what it would do, then throws it.
   */
  refusal?(rows: readonly Row[]): CliError | undefined;
  rows: RowAdapter<Row, R>;
  /** An input row never sent, for the report of a run interrupted before sending. */
  inputNotAttempted: (input: Input, failure: RowFailure) => R;
  /** Sends one batch of changes. */
  send(client: ApiClient, changes: BatchChange[]): Promise<BatchResponse>;
  /**
   * Against a server without the batch endpoint: another sender's report, or undefined when
   * the job answered itself (a dry run's plan); or it throws (a UsageError: nothing sent).
   */
  withoutBatchRoute(
    error: NoBatchRoute["error"],
    rows: readonly Row[],
    run: SendingRun,
  ): Promise<BatchRunReport<R> | undefined>;
  writeReport(report: BatchRunReport<R>): Promise<void>;
  /** The error a finished run ends with after its report (exit 7), or undefined for exit 0. */
  incomplete(report: BatchRunReport<R>): CliError | undefined;
  interrupted(report: BatchRunReport<R>, signal: InterruptSignal): CliError;
}

/** What a sender other than the batches needs of the run: the client, interrupts, progress. */
export interface SendingRun {
  client: ApiClient;
  interruptedBy: () => InterruptSignal | undefined;
  progress: ApplyProgress;
}

function emptyReport<R>(): BatchRunReport<R> {
  return { changed: 0, unchanged: 0, failed: 0, notAttempted: 0, results: [] };
}

/** Runs `job` as `context` says (its input, its client, its interrupts, its output). */
export async function runBatchJob<Input, Row, R extends { outcome: string }>(
  job: BatchJob<Input, Row, R>,
  context: CommandContext,
): Promise<void> {
  const state: { sending: boolean; progress?: ApplyProgress } = { sending: false };
  const run = claimRun(context.interrupts, (signal) => {
    state.progress?.stop();
    context.io.err.write(interruptNotice(signal, state.sending ? job.whileSending : undefined));
  });
  try {
    await runClaimed(job, context, run, state);
  } finally {
    run.release();
    state.progress?.stop();
  }
}

async function runClaimed<Input, Row, R extends { outcome: string }>(
  job: BatchJob<Input, Row, R>,
  context: CommandContext,
  run: RunClaim,
  state: { sending: boolean; progress?: ApplyProgress },
): Promise<void> {
  let inputs: Input[] | undefined;
  // An interrupt before anything was sent reports every input row not attempted (or, while
  // reading, that the input was not read to its end).
  const beforeSending: BeforeSending = async (step) => {
    try {
      return await run.until(step);
    } catch (error) {
      if (!(error instanceof RunInterrupted)) throw error;
      const report = reportBeforeSending(inputs, error.signal, job.inputNotAttempted);
      await job.writeReport(report);
      throw job.interrupted(report, error.signal);
    }
  };
  inputs = await job.read(beforeSending);
  job.check?.(inputs);
  const client = await beforeSending(() => context.apiClient());
  const rows = inputs.length === 0 ? undefined : await job.prepare(inputs, client, beforeSending);
  if (rows === undefined) {
    await job.writeReport(emptyReport());
    return;
  }
  inputs = undefined;
  const refusal = job.refusal?.(rows);
  if (refusal !== undefined && !job.dryRun) throw refusal;

  // A dry run changes nothing: it draws no progress bar; nor does a job of one request.
  const sending =
    job.dryRun || job.progress === false
      ? 0
      : rows.filter((row) => job.rows.change(row) !== undefined).length;
  const progress = startApplyProgress(sending, context.io.progress);
  state.progress = progress;
  state.sending = true;
  const interruptedBy = () => run.signal();
  const sent = await sendRows(rows, job.rows, {
    send: (changes) => job.send(client, changes),
    atomic: job.atomic,
    dryRun: job.dryRun,
    onProgress: (settled, failed) => {
      progress.advance(settled, failed);
    },
    interruptedBy,
  });
  const report =
    "kind" in sent
      ? await job.withoutBatchRoute(sent.error, rows, { client, interruptedBy, progress })
      : sent;
  progress.stop();
  if (report !== undefined) await job.writeReport(report);
  const signal = run.signal();
  if (signal !== undefined) throw job.interrupted(report ?? emptyReport(), signal);
  if (refusal !== undefined) throw refusal;
  const incomplete = report === undefined ? undefined : job.incomplete(report);
  if (incomplete !== undefined) throw incomplete;
}
