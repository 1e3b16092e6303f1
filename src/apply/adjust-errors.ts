/**
 * How an `inventory adjust --file` run that did not apply every row ends, after its report:
 * exit 7 when rows failed (or, in a dry run, would fail), 130/143 when interrupted.
 */
import type { InterruptSignal } from "../exit-codes.js";
import { countOf } from "../text/plural.js";
import { shellWord } from "../text/shell-word.js";
import type { AdjustReport } from "./adjust-batches.js";
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

/** ` with the same --ref-prefix P`, when the run made refs from one: a new prefix is new rows. */
function samePrefix(refPrefix: string | undefined): string {
  return refPrefix === undefined ? "" : ` with the same --ref-prefix ${shellWord(refPrefix)}`;
}

/** `200 of 1200 rows not applied (200 failed, 0 not attempted)`, or without the parenthesis. */
function notApplied(report: AdjustReport): string {
  return notAppliedSummary(report, countOf(report.results.length, "row"));
}

/**
 * Some row this run applied, or may have applied (sent without an answer), has no ref
 * (`--no-ref`): running the file again would apply it again.
 */
function appliedWithoutRef(report: AdjustReport): boolean {
  return report.results.some(
    (result) =>
      (result.outcome === "changed" || result.failure?.unanswered === true) &&
      result.row.ref === undefined,
  );
}

/**
 * What to do about the rows not applied, true to what was: a run that applied rows without a
 * ref (`--no-ref`) must not be run again whole, and a run that applied none has none to speak of.
 */
function rerunHint(report: AdjustReport, refPrefix: string | undefined): string {
  const unanswered = report.results.some((result) => result.failure?.unanswered === true);
  if (appliedWithoutRef(report)) {
    return unanswered
      ? "the rows this run applied or may have applied (sent without an answer) have no ref, so running the file again could apply them twice: see with petstore inventory history which of those were applied, and put the rows not applied in a file of their own"
      : "the rows this run applied have no ref, so running the file again would apply them twice: put the rows not applied (the report lists them) in a file of their own";
  }
  if (report.changed === 0 && !unanswered) {
    return report.unchanged > 0
      ? `run the same file again${samePrefix(refPrefix)}: this run applied no row, and the rows applied before come back duplicate`
      : "run the same file again: this run applied no row of it";
  }
  return `run the same file again, unchanged${samePrefix(refPrefix)}: the rows it applied come back duplicate, so only the others apply`;
}

function message(
  report: AdjustReport,
  dryRun: boolean,
  refPrefix: string | undefined,
): { message: string; hint: string } {
  const rows = countOf(report.results.length, "row");
  if (dryRun && report.stoppedBy !== undefined) {
    const stopped = dryRunStopped(report.stoppedBy);
    return { message: stopped.message, hint: stopped.hint ?? "" };
  }
  if (dryRun) {
    return report.rejected === true
      ? {
          message: `dry run: ${failingCount(report.results)} of ${rows} would fail, so the atomic batch would be rejected; nothing was changed`,
          hint: "fix the failing rows first: with --atomic nothing is applied while one fails",
        }
      : {
          message: `dry run: ${failingCount(report.results)} of ${rows} would fail (the report lists them); nothing was changed`,
          hint: "a real run would apply the others and exit 7 too; fix the failing rows first, or run it as it is",
        };
  }
  if (report.rejected === true) {
    return {
      message: `the atomic batch was rejected: ${failingCount(report.results)} of ${rows} failed (the report lists them); nothing was changed`,
      hint: "fix the failed rows and run the file again: nothing of it was applied",
    };
  }
  const applied =
    report.changed > 0 ? `; the other ${countOf(report.changed, "was", "were")} applied` : "";
  if (report.stoppedBy !== undefined) {
    return {
      message: `${stoppedRunMessage(report.stoppedBy, notApplied(report))}${applied}`,
      hint: rerunHint(report, refPrefix),
    };
  }
  if (report.changed === 0) {
    // No row of this run was applied: there are no "rows applied" to keep apart.
    return {
      message: `${report.failed} of ${rows} failed (the report lists them); no row was applied`,
      hint:
        report.unchanged > 0
          ? `fix the failed rows and run the file again${samePrefix(refPrefix)}: the rows applied before come back duplicate`
          : "fix the failed rows and run the file again: nothing of it was applied",
    };
  }
  return {
    message: `${report.failed} of ${rows} failed (the report lists them)${applied}`,
    hint: appliedWithoutRef(report)
      ? "the rows applied have no ref, so running this file again would apply them twice: put the failed ones, fixed, in a new file of their own"
      : `the rows applied stay applied: fix the failed ones in place and run the file again with the same refs${refPrefix === undefined ? "" : ` (the same --ref-prefix ${shellWord(refPrefix)}, no row moved)`}: the rows applied come back duplicate`,
  };
}

/**
 * Some rows failed or were not attempted (or, in a dry run, would fail): exit 7. `refPrefix`:
 * the run's --ref-prefix, which a run again must repeat.
 */
export function adjustIncomplete(
  report: AdjustReport,
  dryRun = false,
  refPrefix?: string,
): RunIncompleteError {
  const { message: text, hint } = message(report, dryRun, refPrefix);
  return new RunIncompleteError(text, hint, report.stoppedBy);
}

/** Stopped by SIGINT or SIGTERM: exit 130 or 143. */
export function adjustInterrupted(
  report: AdjustReport,
  signal: InterruptSignal,
  name: string,
  dryRun = false,
  refPrefix?: string,
): RunInterruptedError {
  return new RunInterruptedError(
    signal,
    interruptedSummary(report, signal, name, dryRun),
    interruptedHint(
      report,
      dryRun,
      dryRun ? "run the dry run again to see every row" : rerunHint(report, refPrefix),
    ),
  );
}
