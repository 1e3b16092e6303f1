/**
 * How an `inventory adjust --file` run that did not apply every row ends, after its report:
 * exit 7 when rows failed (or, in a dry run, would fail), 130/143 when interrupted.
 */
import { CliError, EXIT_CODES, exitCodeForSignal, type InterruptSignal } from "../errors.js";
import { countOf } from "../output/plural.js";
import type { AdjustReport } from "./adjust-batches.js";

const RERUN_HINT =
  "run the same file again, unchanged: the rows it applied come back duplicate, so only the others apply";

function failing(report: AdjustReport): number {
  return report.results.filter(
    (result) => result.failure !== undefined && result.failure.batchRejected !== true,
  ).length;
}

function message(report: AdjustReport, dryRun: boolean): { message: string; hint: string } {
  const rows = countOf(report.results.length, "row");
  if (dryRun) {
    return report.rejected === true
      ? {
          message: `dry run: ${failing(report)} of ${rows} would fail, so the atomic batch would be rejected; nothing was changed`,
          hint: "fix the failing rows first: with --atomic nothing is applied while one fails",
        }
      : {
          message: `dry run: ${failing(report)} of ${rows} would fail (the report lists them); nothing was changed`,
          hint: "a real run would apply the others and exit 7 too; fix the failing rows first, or run it as it is",
        };
  }
  if (report.rejected === true) {
    return {
      message: `the atomic batch was rejected: ${failing(report)} of ${rows} failed (the report lists them); nothing was changed`,
      hint: "fix the failed rows and run the file again: nothing of it was applied",
    };
  }
  const applied =
    report.changed > 0 ? `; the other ${countOf(report.changed, "was", "were")} applied` : "";
  if (report.stoppedBy !== undefined) {
    return {
      message: `a batch request failed (${report.stoppedBy.reason}), so the run stopped: ${report.failed} of ${rows} not applied${applied}`,
      hint: RERUN_HINT,
    };
  }
  return {
    message: `${report.failed} of ${rows} failed (the report lists them)${applied}`,
    hint:
      "the rows applied stay applied: put the failed ones, fixed, in a new file of their own " +
      "(running this file again applies nothing twice, but an edited copy is a new file: its rows without a ref would apply again)",
  };
}

/** Some rows failed (or would fail): exit 7. */
export class AdjustIncompleteError extends CliError {
  constructor(report: AdjustReport, dryRun = false) {
    const { message: text, hint } = message(report, dryRun);
    super(text, EXIT_CODES.partialFailure, hint);
  }
}

/** Stopped by SIGINT or SIGTERM: exit 130 or 143. */
export class AdjustInterruptedError extends CliError {
  readonly signal: InterruptSignal;

  constructor(report: AdjustReport, signal: InterruptSignal) {
    const notAttempted = report.results.filter(
      (result) => result.failure?.notAttempted === true,
    ).length;
    const failed = report.failed - notAttempted;
    const parts = [
      `${countOf(report.changed, "change")} applied`,
      `${countOf(notAttempted, "row")} not attempted`,
      ...(failed > 0 ? [`${failed} failed`] : []),
    ];
    super(
      `interrupted by ${signal}: ${parts.join(", ")} (the report lists them)`,
      exitCodeForSignal(signal),
      RERUN_HINT,
    );
    this.signal = signal;
  }
}
