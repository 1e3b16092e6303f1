/** What a bulk run's summary line says of an atomic batch the server rejected. */
import { failingCount } from "../apply/run-errors.js";
import type { RowFailure } from "../apply/row-failure.js";

/**
 * The summary's note on a rejected atomic batch, after its "N failed": how many of those rows
 * failed for a reason of their own when the others were only rejected with them (they are
 * listed apart, as not applied), so that the line agrees with the lists below it and with the
 * error line's "1 of 2 changes failed". Empty when the batch was not rejected.
 */
export function rejectedBatchNote(
  report: {
    rejected?: boolean | undefined;
    failed: number;
    results: readonly { outcome: string; failure?: RowFailure | undefined }[];
  },
  dryRun: boolean,
): string {
  if (report.rejected !== true) return "";
  const failing = failingCount(report.results);
  const forWhich = failing < report.failed ? ` for ${failing} of them` : "";
  return dryRun
    ? ` (the atomic batch would be rejected${forWhich}: nothing would change)`
    : ` (the atomic batch was rejected${forWhich}: nothing was changed)`;
}
