/** `inventory apply`: validates a counts file, then applies only what differs. */
import { basename } from "node:path";
import { ApplyIncompleteError } from "../../apply/apply-incomplete-error.js";
import { ApplyInterruptedError } from "../../apply/apply-interrupted-error.js";
import type { CountsFormat } from "../../apply/counts.js";
import { executePlan, type ApplyReport } from "../../apply/execute.js";
import { planApply } from "../../apply/plan.js";
import {
  detectCountsFormat,
  parseCounts,
  readCountsText,
  sourceName,
} from "../../apply/read-counts.js";
import { fittedReason } from "../../api/change-reason.js";
import { quantityETag } from "../../client/etag.js";
import { UsageError } from "../../errors.js";
import { writeApplyPlan, writeApplyReport } from "../../output/apply.js";
import { startApplyProgress } from "../../output/apply-progress.js";
import { chooseRecordFormat } from "../../output/format.js";
import { countOf } from "../../output/plural.js";
import type { CommandContext } from "../../program/factory.js";
import type { InterruptSignal } from "../../errors.js";

/** The options of `inventory apply`, as its command definition parses them. */
export interface InventoryApplyOptions {
  format?: CountsFormat | undefined;
  dryRun?: boolean | undefined;
  maxChanges?: number | undefined;
  /** PATCHes in flight at once (the command gives its default). */
  concurrency: number;
  json?: boolean | undefined;
  /** Write every changed row unconditionally, over whatever the entry holds by then. */
  force?: boolean | undefined;
  /** Why, kept in each changed entry's history; default `apply <file name>`. */
  reason?: string | undefined;
}

/**
 * The reason a run gives when none was asked for: `apply counts.csv` (the file's name, without
 * its folders), `apply stdin`; cut and made printable to fit the rule of a reason.
 */
export function defaultApplyReason(file: string): string {
  return fittedReason(`apply ${file === "-" ? "stdin" : basename(file)}`);
}

const EMPTY_REPORT: ApplyReport = { changed: 0, unchanged: 0, failed: 0, results: [] };

/**
 * Validates the whole file (nothing is sent if any row is bad), fetches the inventory once,
 * PATCHes only the rows that differ, and prints the report. Throws ApplyIncompleteError
 * (exit 7) after the report when some rows failed, and ApplyInterruptedError (exit 130/143)
 * after it when SIGINT or SIGTERM stopped the writes.
 */
export async function runInventoryApply(
  file: string,
  options: InventoryApplyOptions,
  context: CommandContext,
): Promise<void> {
  const { io } = context;
  const name = sourceName(file);
  const text = await readCountsText(file, context.input);
  const rows = parseCounts(text, detectCountsFormat(file, text, options.format), name);
  const client = await context.apiClient();
  const reportFormat = options.json === true ? "json" : "text";
  if (rows.length === 0 && options.dryRun !== true) {
    writeApplyReport(EMPTY_REPORT, reportFormat, name, io);
    return;
  }
  const plan = planApply(rows, await client.listInventory());
  const overLimit = options.maxChanges !== undefined && plan.changes > options.maxChanges;
  const limitText = `${countOf(plan.changes, "entry", "entries")} would change, more than --max-changes ${options.maxChanges ?? 0}`;

  if (options.dryRun === true) {
    writeApplyPlan(plan, chooseRecordFormat(options, io), io);
    if (overLimit) io.err.write(`warning: ${limitText}: a real run would refuse\n`);
    return;
  }
  if (overLimit) {
    throw new UsageError(
      `${name}: ${limitText}; nothing was applied`,
      "check the file (--dry-run shows every change); if the changes are expected, raise --max-changes",
    );
  }

  // Until the writes start, an interrupt ends the run at once: nothing has been changed.
  const progress = startApplyProgress(plan.changes, io.progress);
  let interruptedBy: InterruptSignal | undefined;
  const release = context.interrupts.claim((signal) => {
    interruptedBy = signal;
    progress.stop();
    io.err.write(
      `interrupted by ${signal}: starting no more changes; finishing those in flight, then printing the report (interrupt again to stop at once)\n`,
    );
  });
  const reason = options.reason ?? defaultApplyReason(file);
  let report: ApplyReport;
  try {
    report = await executePlan(plan, {
      // The ETag of an entry is its quantity, so the listed quantity is the precondition. A pet
      // the list did not show has none to keep: the server decides (404 when it has no such pet).
      update: (petId, quantity, previous) =>
        client.updateInventory(petId, quantity, {
          ...(options.force === true || previous === undefined
            ? {}
            : { ifMatch: quantityETag(previous) }),
          reason,
        }),
      concurrency: options.concurrency,
      onSettled: (result) => {
        progress.tick(result.outcome === "failed" || result.outcome === "conflict");
      },
      interruptedBy: () => interruptedBy,
    });
  } finally {
    release();
    progress.stop();
  }
  writeApplyReport(report, reportFormat, name, io);
  if (interruptedBy !== undefined) throw new ApplyInterruptedError(report, interruptedBy);
  if (report.failed > 0) throw new ApplyIncompleteError(report);
}
