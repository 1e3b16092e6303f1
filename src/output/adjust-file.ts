/**
 * Printing what `inventory adjust --file` did (or, in a dry run, would do): a summary, the
 * rows changed, the rows that failed and why, the rows not applied or not attempted; or the
 * same as JSON.
 */
import type { AdjustReport, AdjustRowResult } from "../apply/adjust-batches.js";
import { describeLocation } from "../apply/counts.js";
import { dryRunWord } from "./apply-dry-run.js";
import type { IoStreams } from "./io-streams.js";
import { rejectedBatchNote } from "./rejected-batch.js";
import { writeJsonReport } from "./json.js";
import { notAttemptedSection, notAttemptedSummary, reportHeadJson } from "./not-attempted.js";
import { countOf } from "../text/plural.js";

/** How many changed (or not attempted) rows a terminal shows before pointing at --json. */
const MAX_ROWS_SHOWN_ON_TTY = 20;

function signed(delta: number): string {
  return delta > 0 ? `+${delta}` : String(delta);
}

function isBatchRejected(result: AdjustRowResult): boolean {
  return result.failure?.batchRejected === true;
}

function jsonOutcome(result: AdjustRowResult, dryRun: boolean): string {
  return dryRun ? dryRunWord(result.outcome) : result.outcome;
}

function failureReason(result: AdjustRowResult, dryRun: boolean): string {
  if (dryRun && isBatchRejected(result)) {
    return "would not be applied: the batch is atomic and other rows would fail";
  }
  return result.failure?.reason ?? "failed";
}

function resultJson(result: AdjustRowResult, dryRun: boolean): unknown {
  const { row, failure } = result;
  return {
    row: row.row,
    line: row.location.line,
    ...(row.location.entry === undefined ? {} : { entry: row.location.entry }),
    petId: row.petId,
    delta: row.delta,
    ref: row.ref ?? null,
    outcome: jsonOutcome(result, dryRun),
    previous: result.previous,
    quantity: result.quantity,
    ...(failure === undefined
      ? {}
      : {
          reason: failureReason(result, dryRun),
          ...(failure.code === undefined ? {} : { code: failure.code }),
          ...(failure.status === undefined ? {} : { status: failure.status }),
          ...(failure.unanswered === true ? { unanswered: true } : {}),
        }),
  };
}

/** `line 8: pet 99 -3`: a row by where it is in the file and what it asks. */
function rowText(result: AdjustRowResult): string {
  const { row } = result;
  return `${describeLocation(row.location)}: pet ${row.petId} ${signed(row.delta)}`;
}

function changeLine(result: AdjustRowResult, io: IoStreams): string {
  const { row, previous, quantity } = result;
  const change =
    previous === null || quantity === null
      ? signed(row.delta)
      : `${previous} ${io.symbols.arrow} ${quantity} (${signed(row.delta)})`;
  return `  pet ${row.petId}: ${change}\n`;
}

/** Lines for `rows`, capped on a terminal with a pointer to --json. */
function cappedLines(
  rows: readonly AdjustRowResult[],
  line: (result: AdjustRowResult) => string,
  io: IoStreams,
): string {
  const shown = io.isTTY ? rows.slice(0, MAX_ROWS_SHOWN_ON_TTY) : rows;
  let text = shown.map(line).join("");
  if (shown.length < rows.length) {
    const more = `  ${io.symbols.ellipsis} and ${rows.length - shown.length} more (--json lists every row)`;
    text += `${io.style.dim(more)}\n`;
  }
  return text;
}

/**
 * The summary line: `sales.csv: 0 changed, 120 already applied (duplicate), 0 failed`, then
 * the rows not attempted when there are any, and what interrupted the run.
 */
export function adjustSummary(report: AdjustReport, name: string, dryRun: boolean): string {
  const duplicates = `${report.unchanged} already applied (duplicate)`;
  if (dryRun) {
    const rows = countOf(report.results.length, "row");
    const rejected = rejectedBatchNote(report, true);
    return `dry run of ${name}: ${report.changed} of ${rows} would change, ${duplicates}, ${report.failed} would fail${rejected}${notAttemptedSummary(report)}; nothing was changed\n`;
  }
  const rejected = rejectedBatchNote(report, false);
  return `${name}: ${report.changed} changed, ${duplicates}, ${report.failed} failed${rejected}${notAttemptedSummary(report)}\n`;
}

/**
 * Prints the report of a run (or a dry run): JSON with `--json`, else the summary, the rows
 * changed, every failure with its reason and location, and the rows not applied.
 */
export async function writeAdjustReport(
  report: AdjustReport,
  format: "json" | "text",
  name: string,
  io: IoStreams,
  dryRun = false,
): Promise<void> {
  if (format === "json") {
    await writeJsonReport(io.out, reportHeadJson(report, dryRun), report.results, (result) =>
      resultJson(result, dryRun),
    );
    return;
  }
  const { style } = io;
  let text = adjustSummary(report, name, dryRun);
  const changed = report.results.filter((result) => result.outcome === "changed");
  if (changed.length > 0) {
    text += `${dryRun ? "would change" : "changed"}:\n`;
    text += cappedLines(changed, (result) => changeLine(result, io), io);
  }
  const failed = report.results.filter((result) => result.outcome === "failed");
  const refused = failed.filter((result) => !isBatchRejected(result));
  if (refused.length > 0) {
    text += `${dryRun ? "would fail" : "failed"}:\n`;
    text += refused
      .map((result) => `  ${rowText(result)}: ${style.red(failureReason(result, dryRun))}\n`)
      .join("");
  }
  const notApplied = failed.filter(isBatchRejected);
  if (notApplied.length > 0) {
    text += `${dryRun ? "would not be applied" : "not applied"} (${countOf(notApplied.length, "row")}: the batch is atomic and the rows above ${dryRun ? "would fail" : "failed"}):\n`;
    text += cappedLines(notApplied, (result) => `  ${rowText(result)}\n`, io);
  }
  text += notAttemptedSection(
    report,
    {
      interrupted: "run the same file again to apply them",
      serverFailing: "run the same file again later",
    },
    (rows) => cappedLines(rows, (result) => `  ${rowText(result)}\n`, io),
  );
  io.out.write(text);
}
