/** Printing what `inventory apply` did (the report), and the rows a dry run would change. */
import type { ApplyReport, RowResult } from "../apply/execute.js";
import { tsvLine } from "./delimited.js";
import type { IoStreams } from "./io-streams.js";
import { rejectedBatchNote } from "./rejected-batch.js";
import { writeJsonReport } from "./json.js";
import { notAttemptedSection, notAttemptedSummary, reportHeadJson } from "./not-attempted.js";
import { countOf } from "../text/plural.js";
import { renderTable } from "./table.js";

/**
 * How many changed (or not attempted) rows a terminal shows before pointing at --json;
 * failures are all shown, and a log gets every row.
 */
const MAX_ROWS_SHOWN_ON_TTY = 20;

export function quantityText(value: number | undefined): string {
  return value === undefined ? "not listed" : String(value);
}

/** A row a dry run would change: the pet, the quantity read, the quantity wanted. */
interface WouldChange {
  petId: bigint;
  previous?: number | undefined;
  desired: number;
}

/** The rows a dry run would change, one tab-separated line each (petId, current, desired). */
export function wouldChangeTsv(rows: readonly WouldChange[]): string {
  return rows.map((row) => tsvLine([row.petId, row.previous ?? "", row.desired])).join("");
}

/** The rows a dry run would change as a table (petId, current, desired); empty for none. */
export function wouldChangeTable(rows: readonly WouldChange[], io: IoStreams): string {
  if (rows.length === 0) return "";
  return renderTable(
    {
      head: ["petId", "current", "desired"],
      rows: rows.map((row) => [
        row.petId.toString(),
        quantityText(row.previous),
        String(row.desired),
      ]),
      rightAligned: [0, 1, 2],
    },
    io,
  );
}

/** One row of the report as JSON: its outcome and, for failures, why. */
function resultJson(row: RowResult): unknown {
  return {
    petId: row.petId,
    previous: row.previous ?? null,
    desired: row.desired,
    outcome: row.outcome,
    ...(row.outcome === "conflict" ? { current: row.current ?? null } : {}),
    ...(row.failure === undefined
      ? {}
      : {
          reason: row.failure.reason,
          ...(row.failure.code === undefined ? {} : { code: row.failure.code }),
          ...(row.failure.status === undefined ? {} : { status: row.failure.status }),
          ...(row.failure.unanswered === true ? { unanswered: true } : {}),
        }),
  };
}

function changeLine(row: RowResult, io: IoStreams): string {
  return `  pet ${row.petId}: ${quantityText(row.previous)} ${io.symbols.arrow} ${row.desired}\n`;
}

/** The change lines of `rows`, capped on a terminal with a pointer to --json. */
function changeLines(rows: readonly RowResult[], io: IoStreams): string {
  const shown = io.isTTY ? rows.slice(0, MAX_ROWS_SHOWN_ON_TTY) : rows;
  let text = shown.map((row) => changeLine(row, io)).join("");
  if (shown.length < rows.length) {
    const more = `  ${io.symbols.ellipsis} and ${rows.length - shown.length} more (--json lists every row)`;
    text += `${io.style.dim(more)}\n`;
  }
  return text;
}

/**
 * Prints the report of a run: JSON with `--json`, else a summary line, the changes and every
 * failure with its reason (the same text on a terminal, coloured, and in a cron log). Rows not
 * attempted are listed, unless none was sent (then the summary says so: every row was).
 */
export async function writeApplyReport(
  report: ApplyReport,
  format: "json" | "text",
  name: string,
  io: IoStreams,
): Promise<void> {
  if (format === "json") {
    await writeJsonReport(io.out, reportHeadJson(report, false), report.results, resultJson);
    return;
  }
  const { style } = io;
  const conflictCount = report.results.filter((row) => row.outcome === "conflict").length;
  const failedCount =
    `${report.failed} failed` +
    (report.rejected === true
      ? rejectedBatchNote(report, false)
      : conflictCount > 0
        ? ` (${conflictCount} in conflict)`
        : "");
  let text =
    `${name}: ${style.green(`${report.changed} changed`)}, ${report.unchanged} unchanged, ` +
    `${report.failed > 0 ? style.red(failedCount) : failedCount}${notAttemptedSummary(report)}\n`;

  const changed = report.results.filter((row) => row.outcome === "changed");
  if (changed.length > 0) text += "changed:\n" + changeLines(changed, io);

  const conflicts = report.results.filter((row) => row.outcome === "conflict");
  if (conflicts.length > 0) {
    text +=
      "conflict (changed by someone else since this run read it; not overwritten; run the same command again to apply the file over the new values, or check them first):\n";
    text += conflicts
      .map(
        (row) =>
          `  pet ${row.petId}: ${style.red(`read ${quantityText(row.previous)}, now ${row.current ?? "unknown"}`)}; wanted ${row.desired}\n`,
      )
      .join("");
  }

  const failed = report.results.filter((row) => row.outcome === "failed");
  const attempted = failed.filter((row) => row.failure?.batchRejected !== true);
  const notApplied = failed.filter((row) => row.failure?.batchRejected === true);
  if (attempted.length > 0) {
    text += "failed:\n";
    text += attempted
      .map((row) => `  pet ${row.petId}: ${style.red(row.failure?.reason ?? "failed")}\n`)
      .join("");
  }
  if (notApplied.length > 0) {
    text += `not applied (${countOf(notApplied.length, "row")}: the batch was atomic and the rows above failed; fix them and run again):\n`;
    text += changeLines(notApplied, io);
  }
  text += notAttemptedSection(
    report,
    { interrupted: "run the same command again to apply them", serverFailing: "run again later" },
    (rows) => changeLines(rows, io),
  );
  io.out.write(text);
}
