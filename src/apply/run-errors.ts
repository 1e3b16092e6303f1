/**
 * How a bulk run (`apply`, `adjust --file`, `count`) that did not apply every row ends, after
 * its report: one error for "some rows failed" (exit 7) and one for an interrupt (130/143).
 * Each verb words the message and the hint (apply-errors.ts, adjust-errors.ts).
 */
import { CliError } from "../errors.js";
import { EXIT_CODES, exitCodeForSignal, type InterruptSignal } from "../exit-codes.js";
import { countOf } from "../text/plural.js";
import type { InterruptedPhase } from "./batches.js";
import type { RowFailure } from "./row-failure.js";

/** Rows failed or were not attempted (or, in a dry run, would fail): exit 7. */
export class RunIncompleteError extends CliError {
  constructor(message: string, hint: string) {
    super(message, EXIT_CODES.partialFailure, hint);
  }
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
  const parts = [
    `${countOf(report.changed, "change")} applied`,
    `${countOf(report.notAttempted, "row")} not attempted`,
    ...(report.failed > 0 ? [`${report.failed} failed`] : []),
  ];
  return `interrupted by ${signal}: ${parts.join(", ")} (the report lists them)`;
}
