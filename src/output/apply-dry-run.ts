/**
 * Printing a dry run the server evaluated (`inventory apply --dry-run` against a server with
 * the batch endpoint): what the run would change, and which rows would fail and why.
 */
import type { ApplyReport, RowResult } from "../apply/execute.js";
import type { OutputFormat } from "./format.js";
import type { IoStreams } from "./io-streams.js";
import { wouldChangeTable, wouldChangeTsv } from "./apply.js";
import { writeJsonReport } from "./json.js";
import { notAttemptedSummary, reportCountsJson } from "./not-attempted.js";
import { countOf } from "../text/plural.js";

/** A dry run's word for what a row would do. */
export const DRY_RUN_OUTCOMES = [
  "would_change",
  "unchanged",
  "would_fail",
  "not_attempted",
] as const;
export type DryRunOutcome = (typeof DRY_RUN_OUTCOMES)[number];

/**
 * What a dry run's JSON says a row would do, for apply, `adjust --file` and count alike: a
 * change is `would_change`, a failure or conflict `would_fail`, and any other outcome
 * (`unchanged`, `duplicate`, `not_attempted`) is said as a real run says it.
 */
export function dryRunWord<T extends string>(
  outcome: T,
): Exclude<T, "changed" | "failed" | "conflict"> | "would_change" | "would_fail" {
  if (outcome === "changed") return "would_change";
  if (outcome === "failed" || outcome === "conflict") return "would_fail";
  return outcome as Exclude<T, "changed" | "failed" | "conflict">;
}

function dryRunOutcome(row: RowResult): DryRunOutcome {
  return dryRunWord(row.outcome);
}

/** Why a row would fail, as a dry run says it. */
export function wouldFailReason(row: RowResult): string {
  if (row.failure?.batchRejected === true) {
    return "would not be applied: the batch is atomic and other rows would fail";
  }
  return row.failure?.reason ?? "would fail";
}

/** The one-line summary of a dry run the server evaluated. */
export function evaluatedDryRunSummary(report: ApplyReport): string {
  const rows = report.results.length;
  if (report.rejected === true) {
    const failing = report.results.filter(
      (row) => row.failure !== undefined && row.failure.batchRejected !== true,
    ).length;
    return `dry run: the atomic batch would be rejected (${failing} of ${countOf(report.changed + report.failed, "change")} would fail), so nothing would change; nothing was changed\n`;
  }
  if (report.changed === 0 && report.failed === 0 && report.notAttempted === 0) {
    return `dry run: nothing to change (${countOf(rows, "row is", "rows are")} already right)\n`;
  }
  const fail = report.failed === 0 ? "" : `, ${report.failed} would fail`;
  return `dry run: ${report.changed} of ${countOf(rows, "row")} would change${fail}${notAttemptedSummary(report)}; nothing was changed\n`;
}

function dryRunRowJson(row: RowResult): unknown {
  const outcome = dryRunOutcome(row);
  return {
    petId: row.petId,
    previous: row.previous ?? null,
    desired: row.desired,
    outcome,
    ...(row.outcome === "conflict" ? { current: row.current ?? null } : {}),
    ...(outcome === "would_fail"
      ? {
          reason: wouldFailReason(row),
          ...(row.failure?.code === undefined ? {} : { code: row.failure.code }),
          ...(row.failure?.status === undefined ? {} : { status: row.failure.status }),
        }
      : {}),
  };
}

function failureLines(failing: readonly RowResult[], io: IoStreams): string {
  return failing
    .map((row) => `  pet ${row.petId}: ${io.style.red(wouldFailReason(row))}\n`)
    .join("");
}

/**
 * Prints a dry run the server evaluated: JSON of every row; on a terminal a table of the rows
 * that would change (pet, current, desired), the rows that would fail and why, and a summary;
 * piped, one tab-separated line per row that would change on stdout, and the rows that would
 * fail and the summary on stderr.
 */
export async function writeApplyDryRun(
  report: ApplyReport,
  format: Exclude<OutputFormat, "csv">,
  io: IoStreams,
): Promise<void> {
  const changes = report.results.filter((row) => row.outcome === "changed");
  const failing = report.results.filter(
    (row) => row.outcome === "failed" || row.outcome === "conflict",
  );
  const failingText = failing.length === 0 ? "" : `would fail:\n${failureLines(failing, io)}`;
  switch (format) {
    case "json":
      await writeJsonReport(
        io.out,
        {
          dryRun: true,
          wouldChange: report.changed,
          unchanged: report.unchanged,
          wouldFail: report.failed,
          ...reportCountsJson(report),
        },
        report.results,
        dryRunRowJson,
      );
      return;
    case "tsv":
      io.out.write(wouldChangeTsv(changes));
      io.err.write(failingText + evaluatedDryRunSummary(report));
      return;
    case "table":
      io.out.write(
        `${wouldChangeTable(changes, io)}${failingText}${io.style.dim(evaluatedDryRunSummary(report).trimEnd())}\n`,
      );
      return;
  }
}
