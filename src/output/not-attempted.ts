/**
 * The rows a bulk run (`apply`, `adjust --file`) never sent, in its report: a count of their
 * own, apart from the failures, and what interrupted the run, in the phase it was in.
 */
import type { InterruptedPhase } from "../apply/batches.js";
import { countOf } from "../text/plural.js";

/** What a report says of its rows not attempted and of an interrupt. */
export interface NotAttemptedCounts {
  notAttempted: number;
  interruptedBy?: string | undefined;
  interruptedDuring?: InterruptedPhase | undefined;
}

/**
 * A bulk run's JSON head: its counts (as a dry run words them: wouldChange, wouldFail), then
 * what was not attempted and what interrupted it (reportCountsJson).
 */
export function reportHeadJson(
  report: NotAttemptedCounts & { changed: number; unchanged: number; failed: number },
  dryRun: boolean,
): Record<string, unknown> {
  const counts = dryRun
    ? {
        dryRun: true,
        wouldChange: report.changed,
        unchanged: report.unchanged,
        wouldFail: report.failed,
      }
    : { changed: report.changed, unchanged: report.unchanged, failed: report.failed };
  return { ...counts, ...reportCountsJson(report) };
}

/**
 * The counts of a report as JSON's head: `notAttempted` always (null when the file was not
 * read to its end, so its rows are not known), and what interrupted the run when something did.
 */
export function reportCountsJson(report: NotAttemptedCounts): Record<string, unknown> {
  const unread = report.interruptedDuring === "reading";
  return {
    notAttempted: unread ? null : report.notAttempted,
    ...(report.interruptedBy === undefined
      ? {}
      : {
          interruptedBy: report.interruptedBy,
          ...(report.interruptedDuring === undefined
            ? {}
            : { interruptedDuring: report.interruptedDuring }),
        }),
  };
}

/**
 * The end of a summary line after the counts of changed, unchanged and failed rows: the rows
 * not attempted when there are any, and what interrupted the run.
 */
export function notAttemptedSummary(report: NotAttemptedCounts): string {
  const signal = report.interruptedBy;
  if (report.interruptedDuring === "reading" && signal !== undefined) {
    return `; interrupted by ${signal} while reading the file: it was not read to its end, and nothing was sent`;
  }
  const count = report.notAttempted > 0 ? `, ${report.notAttempted} not attempted` : "";
  if (signal === undefined) return count;
  const when = report.interruptedDuring === "preparing" ? " before anything was sent" : "";
  return `${count} (interrupted by ${signal}${when})`;
}

/**
 * What a bulk run says on stderr as it takes an interrupt: before it has sent anything it
 * stops at once; while sending, it does what `sending` says (finish the requests in flight).
 */
export function interruptNotice(signal: string, sending: string | undefined): string {
  const now = sending ?? "no change has been sent; stopping";
  return `interrupted by ${signal}: ${now}, then printing the report (interrupt again to stop at once)\n`;
}

/** What to do about rows not attempted, in the verb's words, for each reason they were not. */
export interface RerunAdvice {
  /** After an interrupt: `run the same command again to apply them`. */
  interrupted: string;
  /** After the server kept failing: `run again later`. */
  serverFailing: string;
}

/**
 * The report's list of rows not attempted, headed by how many and why; empty when there are
 * none, or when nothing was sent at all (the summary says so, once). `lines` prints the rows.
 */
export function notAttemptedSection<R extends { outcome: string }>(
  report: NotAttemptedCounts & { results: readonly R[] },
  advice: RerunAdvice,
  lines: (rows: R[]) => string,
): string {
  if (report.interruptedDuring === "preparing") return "";
  const rows = report.results.filter((result) => result.outcome === "not_attempted");
  if (rows.length === 0) return "";
  const why =
    report.interruptedBy !== undefined
      ? `interrupted by ${report.interruptedBy}; ${advice.interrupted}`
      : `the server kept failing; ${advice.serverFailing}`;
  return `not attempted (${countOf(rows.length, "row")}: ${why}):\n${lines(rows)}`;
}
