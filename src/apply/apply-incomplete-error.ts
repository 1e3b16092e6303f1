/** An apply that finished with some rows failed: exit 7, after the report has been printed. */
import { CliError, EXIT_CODES } from "../errors.js";
import { countOf } from "../output/plural.js";
import type { ApplyReport } from "./execute.js";

export class ApplyIncompleteError extends CliError {
  constructor(report: ApplyReport) {
    const attempted = report.changed + report.failed;
    const applied =
      report.changed > 0 ? `; the other ${countOf(report.changed, "was", "were")} applied` : "";
    const conflicts = report.results.filter((row) => row.outcome === "conflict").length;
    const inConflict =
      conflicts === 0
        ? ""
        : `; ${conflicts} in conflict: changed by someone else since the run read ${conflicts === 1 ? "it" : "them"}, not overwritten`;
    const message =
      report.stoppedAfter === undefined
        ? `${report.failed} of ${countOf(attempted, "change")} failed (the report lists them${inConflict})${applied}`
        : `the server kept failing, so the run stopped after ${countOf(report.stoppedAfter, "failure")} in a row: ` +
          `${report.failed} of ${countOf(attempted, "change")} not applied${applied}`;
    super(
      message,
      EXIT_CODES.partialFailure,
      "run the same command again: it reads the stock again and changes only what is still different",
    );
  }
}
