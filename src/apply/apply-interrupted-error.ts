/** An apply stopped by SIGINT or SIGTERM: exit 130 or 143, after the report has been printed. */
import { CliError, exitCodeForSignal, type InterruptSignal } from "../errors.js";
import { countOf } from "../output/plural.js";
import type { ApplyReport } from "./execute.js";

export class ApplyInterruptedError extends CliError {
  readonly signal: InterruptSignal;

  constructor(report: ApplyReport, signal: InterruptSignal) {
    const notAttempted = report.results.filter((row) => row.failure?.notAttempted === true).length;
    const failed = report.failed - notAttempted;
    const parts = [
      `${countOf(report.changed, "change")} applied`,
      `${countOf(notAttempted, "row")} not attempted`,
      ...(failed > 0 ? [`${failed} failed`] : []),
    ];
    super(
      `interrupted by ${signal}: ${parts.join(", ")} (the report lists them)`,
      exitCodeForSignal(signal),
      "run the same command again: it changes only what is still different",
    );
    this.signal = signal;
  }
}
