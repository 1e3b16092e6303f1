/**
 * How an `inventory apply` run that did not apply every row ends, after its report: exit 7
 * when rows failed (or, in a dry run, would fail), 130/143 when interrupted.
 */
import type { InterruptSignal } from "../exit-codes.js";
import { countOf } from "../text/plural.js";
import type { ApplyReport } from "./execute.js";
import {
  dryRunStopped,
  failingCount,
  interruptedHint,
  interruptedSummary,
  notAppliedSummary,
  RunIncompleteError,
  RunInterruptedError,
  stoppedRunMessage,
} from "./run-errors.js";

const RERUN_HINT =
  "run the same command again: it reads the stock again and changes only what is still different";

/** `200 of 200 changes not applied (10 failed, 190 not attempted)`, or without the parenthesis. */
function notApplied(report: ApplyReport, changes: number): string {
  return notAppliedSummary(report, countOf(changes, "change"));
}

function message(report: ApplyReport): string {
  const attempted = report.changed + report.failed + report.notAttempted;
  if (report.rejected === true) {
    return `the atomic batch was rejected: ${failingCount(report.results)} of ${countOf(attempted, "change")} failed (the report lists them); nothing was changed`;
  }
  const applied =
    report.changed > 0 ? `; the other ${countOf(report.changed, "was", "were")} applied` : "";
  const conflicts = report.results.filter((row) => row.outcome === "conflict").length;
  const inConflict =
    conflicts === 0
      ? ""
      : `; ${conflicts} in conflict: changed by someone else since the run read ${conflicts === 1 ? "it" : "them"}, not overwritten`;
  if (report.stoppedAfter !== undefined) {
    return (
      `the server kept failing, so the run stopped after ${countOf(report.stoppedAfter, "failure")} in a row: ` +
      `${notApplied(report, attempted)}${applied}`
    );
  }
  if (report.stoppedBy !== undefined) {
    return `${stoppedRunMessage(report.stoppedBy, notApplied(report, attempted))}${applied}`;
  }
  return `${report.failed} of ${countOf(attempted, "change")} failed (the report lists them${inConflict})${applied}`;
}

/**
 * Whether running again can help every failed row: one in conflict (it is read again), or one
 * the server failed (no answer, 5xx, 429: it is sent again). Another failure (no such pet, a
 * quantity refused) fails again until the row is fixed.
 */
function rerunHelps(report: ApplyReport): boolean {
  return report.results.every((row) => {
    if (row.outcome !== "failed") return true;
    const { status, code, unanswered } = row.failure ?? {};
    if (unanswered === true) return true;
    // No answer said anything of the row (a connection refused): the server's failure.
    if (status === undefined) return code === undefined;
    return status >= 500 || status === 429;
  });
}

/** The run stopped because the server refused the key (401, 403). */
function keyRefused(report: ApplyReport): boolean {
  const status = report.stoppedBy?.status;
  return status === 401 || status === 403;
}

/** Some rows failed or were not attempted: exit 7. */
export function applyIncomplete(report: ApplyReport): RunIncompleteError {
  return new RunIncompleteError(
    message(report),
    report.rejected === true
      ? "fix or remove the failed rows and run again (without --atomic the other rows would be applied)"
      : keyRefused(report)
        ? "the server refused the key partway: fix the key, then run the same command again: it changes only what is still different"
        : report.stoppedBy !== undefined || rerunHelps(report)
          ? RERUN_HINT
          : "fix or remove the failed rows (the report says why each failed), then run it again: it changes only what is still different",
    report.stoppedBy,
  );
}

/**
 * A dry run the server evaluated in which some rows would fail: exit 7, as the real run would
 * exit.
 */
export function applyDryRunFailures(report: ApplyReport): RunIncompleteError {
  if (report.stoppedBy !== undefined) return dryRunStopped(report.stoppedBy);
  const failing = failingCount(report.results);
  const changes = countOf(report.changed + report.failed + report.notAttempted, "change");
  return report.rejected === true
    ? new RunIncompleteError(
        `dry run: ${failing} of ${changes} would fail, so the atomic batch would be rejected; nothing was changed`,
        "fix or remove the failing rows first: with --atomic nothing is applied while one fails",
      )
    : new RunIncompleteError(
        `dry run: ${failing} of ${changes} would fail (the report lists them); nothing was changed`,
        "a real run would apply the others and exit 7 too; fix the failing rows first, or run it as it is",
      );
}

/** Stopped by SIGINT or SIGTERM: exit 130 or 143. */
export function applyInterrupted(
  report: ApplyReport,
  signal: InterruptSignal,
  name: string,
  dryRun = false,
): RunInterruptedError {
  return new RunInterruptedError(
    signal,
    interruptedSummary(report, signal, name, dryRun),
    interruptedHint(
      report,
      dryRun,
      dryRun
        ? "run the dry run again to see every row"
        : "run the same command again: it changes only what is still different",
    ),
  );
}
