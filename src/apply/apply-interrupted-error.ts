/** A run stopped by SIGINT or SIGTERM: exit 130 or 143, after the report has been printed. */
import { CliError } from "../errors.js";
import { exitCodeForSignal, type InterruptSignal } from "../exit-codes.js";
import { countOf } from "../text/plural.js";
import type { InterruptedPhase } from "./batches.js";
import type { ApplyReport } from "./execute.js";

/** What an interrupted run's error says it left: its counts, as they are known in its phase. */
interface InterruptedCounts {
  changed: number;
  failed: number;
  notAttempted: number;
  interruptedDuring?: InterruptedPhase | undefined;
}

/**
 * What an interrupt left, in words, for `apply` and `adjust --file` alike: `1000 changes
 * applied, 1500 rows not attempted`; before anything was sent, that nothing was.
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

export class ApplyInterruptedError extends CliError {
  readonly signal: InterruptSignal;

  constructor(report: ApplyReport, signal: InterruptSignal, name: string, dryRun = false) {
    super(
      interruptedSummary(report, signal, name, dryRun),
      exitCodeForSignal(signal),
      "run the same command again: it changes only what is still different",
    );
    this.signal = signal;
  }
}
