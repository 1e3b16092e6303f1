/**
 * How a bulk run (`apply`, `adjust --file`, `count`) that did not apply every row ends, after
 * its report: one error for "some rows failed" (exit 7) and one for an interrupt (130/143).
 * Each verb words the message and the hint (apply-errors.ts, adjust-errors.ts).
 */
import { CliError } from "../errors.js";
import {
  EXIT_CODES,
  exitCodeForSignal,
  type ExitCode,
  type InterruptSignal,
} from "../exit-codes.js";
import { countOf } from "../text/plural.js";
import type { InterruptedPhase } from "./batches.js";
import type { RowFailure } from "./row-failure.js";

/**
 * Rows failed or were not attempted (or, in a dry run, would fail): exit 7. A run the server
 * stopped (`stoppedBy`: unreachable, failing, 5xx or 429 after retries; a key refused) ends
 * with that failure's own code, 3 or 4, as a single call would: the report, printed before,
 * says which rows were applied.
 */
export class RunIncompleteError extends CliError {
  constructor(message: string, hint: string, stoppedBy?: RowFailure) {
    super(
      message,
      stoppedBy === undefined ? EXIT_CODES.partialFailure : exitCodeOf(stoppedBy),
      hint,
    );
  }
}

/**
 * A dry run the server stopped partway (its rows after the failed request not evaluated):
 * the server's own exit code, as a real run's.
 */
export function dryRunStopped(stoppedBy: RowFailure): RunIncompleteError {
  return new RunIncompleteError(
    `a batch request failed (${stoppedBy.reason}), so the dry run stopped; nothing was changed`,
    "run the dry run again once the server answers",
    stoppedBy,
  );
}

/** The exit code of a failure that stopped a run: the key refused (4), else the server (3). */
function exitCodeOf(failure: RowFailure): ExitCode {
  return failure.status === 401 || failure.status === 403
    ? EXIT_CODES.unauthorized
    : EXIT_CODES.unavailable;
}

/**
 * A run the server stopped partway, in words: `a batch request failed (why), so the run
 * stopped: ` and what that left (`notApplied`, from notAppliedSummary).
 */
export function stoppedRunMessage(stoppedBy: RowFailure, notApplied: string): string {
  return `a batch request failed (${stoppedBy.reason}), so the run stopped: ${notApplied}`;
}

/**
 * `200 of 1,200 rows not applied (200 failed, 1,000 not attempted)`, or without the
 * parenthesis; rows sent without an answer (which may have been applied) are never said to be
 * not applied: `… not known to be applied (100 sent without an answer, which may have been
 * applied; 100 failed; 1,000 not attempted)`. `rows` names the whole (`1,200 rows`).
 */
export function notAppliedSummary(
  report: {
    failed: number;
    notAttempted: number;
    results: readonly { failure?: RowFailure | undefined }[];
  },
  rows: string,
): string {
  const unanswered = report.results.filter((result) => result.failure?.unanswered === true).length;
  const failed = report.failed - unanswered;
  const total = report.failed + report.notAttempted;
  if (unanswered === 0) {
    const split =
      report.notAttempted > 0 ? ` (${failed} failed, ${report.notAttempted} not attempted)` : "";
    return `${total} of ${rows} not applied${split}`;
  }
  const parts = [
    `${unanswered} sent without an answer, which may have been applied`,
    ...(failed > 0 ? [`${failed} failed`] : []),
    ...(report.notAttempted > 0 ? [`${report.notAttempted} not attempted`] : []),
  ];
  return `${total} of ${rows} not known to be applied (${parts.join("; ")})`;
}

/** Stopped by SIGINT or SIGTERM: exit 130 or 143. */
export class RunInterruptedError extends CliError {
  readonly signal: InterruptSignal;

  constructor(signal: InterruptSignal, message: string, hint: string) {
    super(message, exitCodeForSignal(signal), hint);
    this.signal = signal;
  }
}

/**
 * How many rows failed for a reason of their own: not those only rejected with their atomic
 * batch, nor those never sent.
 */
export function failingCount(
  results: readonly { outcome: string; failure?: RowFailure | undefined }[],
): number {
  return results.filter(
    (result) =>
      result.outcome !== "not_attempted" &&
      result.failure !== undefined &&
      result.failure.batchRejected !== true,
  ).length;
}

/** What an interrupted run's error says it left: its counts, as they are known in its phase. */
interface InterruptedCounts {
  changed: number;
  failed: number;
  notAttempted: number;
  interruptedDuring?: InterruptedPhase | undefined;
}

/** Whether an interrupted run had sent every row (read to its end, none left unsent). */
export function sentEveryRow(report: InterruptedCounts): boolean {
  return (
    report.notAttempted === 0 &&
    report.interruptedDuring !== "reading" &&
    report.interruptedDuring !== "preparing"
  );
}

/**
 * The hint of an interrupted run: `otherwise` unless it had sent every row anyway, and then
 * that nothing is left to do (`nothingLeft`; failed rows aside, which `otherwise` speaks of).
 */
export function interruptedHint(
  report: InterruptedCounts,
  dryRun: boolean,
  otherwise: string,
  nothingLeft = "every row was sent before the run stopped: nothing is left to do",
): string {
  if (!sentEveryRow(report)) return otherwise;
  if (dryRun) return "every row was evaluated before the run stopped: the report is whole";
  return report.failed === 0 ? nothingLeft : otherwise;
}

/**
 * What an interrupt left, in words, for every bulk verb alike: `1000 changes applied, 1500
 * rows not attempted`; before anything was sent, that nothing was.
 */
export function interruptedSummary(
  report: InterruptedCounts,
  signal: InterruptSignal,
  name: string,
  dryRun = false,
): string {
  if (dryRun) {
    if (sentEveryRow(report)) {
      return `interrupted by ${signal} once every row was evaluated: nothing was changed`;
    }
    const rest =
      report.notAttempted > 0 ? `, ${countOf(report.notAttempted, "row")} not evaluated` : "";
    return `interrupted by ${signal}: the dry run stopped${rest}; nothing was changed`;
  }
  if (report.interruptedDuring === "reading") {
    return `interrupted by ${signal} while reading ${name}: it was not read to its end, and nothing was sent`;
  }
  if (report.interruptedDuring === "preparing") {
    return `interrupted by ${signal} before anything was sent: ${countOf(report.notAttempted, "row")} not attempted`;
  }
  // Every row sent by the time the run stopped: the interrupt left nothing undone.
  if (sentEveryRow(report)) {
    const failed = report.failed > 0 ? `, ${report.failed} failed` : "";
    return `interrupted by ${signal} once every row was sent: ${countOf(report.changed, "change")} applied${failed} (the report lists them)`;
  }
  const parts = [
    `${countOf(report.changed, "change")} applied`,
    `${countOf(report.notAttempted, "row")} not attempted`,
    ...(report.failed > 0 ? [`${report.failed} failed`] : []),
  ];
  return `interrupted by ${signal}: ${parts.join(", ")} (the report lists them)`;
}
