/** `inventory apply`: validates a counts file, then applies only what differs. */
import { basename } from "node:path";
import { ApplyIncompleteError, DryRunFailuresError } from "../../apply/apply-incomplete-error.js";
import { ApplyInterruptedError } from "../../apply/apply-interrupted-error.js";
import { applyPlanInBatches, applyReportBeforeSending } from "../../apply/apply-batches.js";
import type { CountRow, CountsFormat } from "../../apply/counts.js";
import { executePlan, type ApplyReport } from "../../apply/execute.js";
import { planApply, type ApplyPlan } from "../../apply/plan.js";
import {
  detectCountsFormat,
  parseCounts,
  readCountsText,
  sourceName,
} from "../../apply/read-counts.js";
import { fittedReason } from "../../api/change-reason.js";
import { MAX_BATCH_CHANGES } from "../../api/limits.js";
import type { ApiClient } from "../../client/api-client.js";
import { quantityETag } from "../../client/etag.js";
import { UsageError } from "../../errors.js";
import { type ApiError } from "../../client/errors.js";
import { writeApplyPlan, writeApplyReport } from "../../output/apply.js";
import { writeApplyDryRun } from "../../output/apply-dry-run.js";
import { startApplyProgress } from "../../output/apply-progress.js";
import { chooseRecordFormat } from "../../output/format.js";
import { countOf } from "../../text/plural.js";
import type { CommandContext } from "../../program/factory.js";
import { withRunClaimed, type BulkRunState } from "./bulk-run.js";
import { RunInterrupted, type RunClaim } from "../../program/interrupts.js";

/** The options of `inventory apply`, as its command definition parses them. */
export interface InventoryApplyOptions {
  format?: CountsFormat | undefined;
  dryRun?: boolean | undefined;
  maxChanges?: number | undefined;
  /** PATCHes in flight at once, against a server without the batch endpoint. */
  concurrency: number;
  json?: boolean | undefined;
  /** Write every changed row unconditionally, over whatever the entry holds by then. */
  force?: boolean | undefined;
  /** All the changes in one atomic batch: every one applied, or none. */
  atomic?: boolean | undefined;
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

const EMPTY_REPORT: ApplyReport = {
  changed: 0,
  unchanged: 0,
  failed: 0,
  notAttempted: 0,
  results: [],
};

/** The route a spec-only server lacks, as messages name it with its answer. */
function noBatchRoute(error: ApiError): string {
  return `the server has no batch endpoint (POST /inventory/batch answered ${error.status})`;
}

/** `--atomic` against a server without the batch endpoint: nothing can be all or nothing. */
function atomicNeedsBatches(error: ApiError): UsageError {
  return new UsageError(
    `--atomic needs the batch endpoint, and ${noBatchRoute(error)}; nothing was applied`,
    "without --atomic the rows are applied one by one (each alone, not all or none); or use a server that has POST /inventory/batch",
  );
}

/**
 * The dry run: the server evaluates the changes in the same batches the run would send
 * (`dryRun`), so what it prints is what the run would do, and it exits as the run would (7
 * when some row would fail). A server without the batch endpoint gets no request: the plan
 * (what differs from the stock read) is printed, as before batches. Over --max-changes it
 * prints the dry run, then exits 2 as the run would.
 */
async function dryRun(
  plan: ApplyPlan,
  options: InventoryApplyOptions,
  client: ApiClient,
  context: CommandContext,
  overLimit: string | undefined,
  run: RunClaim,
): Promise<void> {
  const { io } = context;
  const format = chooseRecordFormat(options, io);
  const atomic = options.atomic === true;
  const report = await applyPlanInBatches(plan, {
    send: (changes) => client.applyBatch({ atomic, dryRun: true, changes }),
    atomic,
    force: options.force === true,
    interruptedBy: run.signal,
  });
  if ("kind" in report) {
    if (atomic) throw atomicNeedsBatches(report.error);
    io.err.write(
      `note: ${noBatchRoute(report.error)}: this dry run shows what differs from the stock it read; the server was not asked whether each change would apply\n`,
    );
    writeApplyPlan(plan, format, io);
  } else {
    await writeApplyDryRun(report, format, io);
  }
  const signal = run.signal();
  if (signal !== undefined) {
    throw new ApplyInterruptedError("kind" in report ? EMPTY_REPORT : report, signal, "", true);
  }
  // The dry run exits as the real run would: 2 when it would refuse, 7 when rows would fail.
  if (overLimit !== undefined) {
    throw new UsageError(
      `dry run: ${overLimit}: a real run would refuse and apply nothing`,
      "if the changes are expected, raise --max-changes",
    );
  }
  if (!("kind" in report) && report.failed > 0) throw new DryRunFailuresError(report);
}

/** Waits for a step that sends nothing, knowing the file's rows when it has read them. */
type BeforeSending = <T>(
  step: () => Promise<T>,
  rows: readonly CountRow[] | undefined,
) => Promise<T>;

/**
 * Reads and validates the whole file (a UsageError naming every bad line: nothing is sent),
 * then fetches the inventory once and plans; no plan when the file has no rows and this is
 * not a dry run. The rows and the text are the file's only copies, and die when planned. The
 * read and the fetch go through `beforeSending`, which ends them at an interrupt.
 */
async function readPlan(
  file: string,
  options: InventoryApplyOptions,
  context: CommandContext,
  beforeSending: BeforeSending,
): Promise<{ plan: ApplyPlan | undefined; client: ApiClient }> {
  const text = await beforeSending(() => readCountsText(file, context.input), undefined);
  const rows = parseCounts(text, detectCountsFormat(file, text, options.format), sourceName(file));
  const client = await beforeSending(() => context.apiClient(), rows);
  if (rows.length === 0 && options.dryRun !== true) return { plan: undefined, client };
  const stock = await beforeSending(() => client.listInventoryQuantities(), rows);
  return { plan: planApply(rows, stock), client };
}

/**
 * Validates the whole file (nothing is sent if any row is bad), fetches the inventory once,
 * and sends only the rows that differ: through the batch endpoint in requests of up to 1,000
 * changes (or one atomic request), else, against a server without it, one PATCH per row.
 * Prints the report; throws ApplyIncompleteError (exit 7) after it when some rows failed, and
 * ApplyInterruptedError (exit 130/143) after it when SIGINT or SIGTERM came, whatever the run
 * was doing: reading the file, fetching the stock, or sending (the writes in flight finish).
 */
export async function runInventoryApply(
  file: string,
  options: InventoryApplyOptions,
  context: CommandContext,
): Promise<void> {
  await withRunClaimed(
    context,
    "starting no more changes; finishing those in flight",
    (run, state) => applyFile(file, options, context, run, state),
  );
}

async function applyFile(
  file: string,
  options: InventoryApplyOptions,
  context: CommandContext,
  run: RunClaim,
  state: BulkRunState,
): Promise<void> {
  const { io } = context;
  const name = sourceName(file);
  const reportFormat = options.json === true ? "json" : "text";
  // On an interrupt while reading or fetching, it reports that nothing was sent.
  const beforeSending: BeforeSending = async (step, rows) => {
    try {
      return await run.until(step);
    } catch (error) {
      if (!(error instanceof RunInterrupted)) throw error;
      const report = applyReportBeforeSending(rows, error.signal);
      await writeApplyReport(report, reportFormat, name, io);
      throw new ApplyInterruptedError(report, error.signal, name, options.dryRun === true);
    }
  };
  const { plan, client } = await readPlan(file, options, context, beforeSending);
  if (plan === undefined) {
    await writeApplyReport(EMPTY_REPORT, reportFormat, name, io);
    return;
  }
  const overLimit =
    options.maxChanges !== undefined && plan.changes > options.maxChanges
      ? `${countOf(plan.changes, "entry", "entries")} would change, more than --max-changes ${options.maxChanges}`
      : undefined;
  const atomic = options.atomic === true;
  if (atomic && plan.changes > MAX_BATCH_CHANGES) {
    throw new UsageError(
      `${name}: ${countOf(plan.changes, "entry", "entries")} would change, more than the ${MAX_BATCH_CHANGES} one atomic batch can hold; nothing was applied`,
      "split the file into parts of at most 10000 changes, or run without --atomic (requests of 1000 changes, each applied alone)",
    );
  }

  if (options.dryRun === true) {
    state.sending = true;
    await dryRun(plan, options, client, context, overLimit, run);
    return;
  }
  if (overLimit !== undefined) {
    throw new UsageError(
      `${name}: ${overLimit}; nothing was applied`,
      "check the file (--dry-run shows every change); if the changes are expected, raise --max-changes",
    );
  }

  state.progress = startApplyProgress(plan.changes, io.progress);
  const progress = state.progress;
  state.sending = true;
  const reason = options.reason ?? defaultApplyReason(file);
  const force = options.force === true;
  let report: ApplyReport;
  const batched = await applyPlanInBatches(plan, {
    send: (changes) => client.applyBatch({ atomic, dryRun: false, changes }, { reason }),
    atomic,
    force,
    onProgress: (settled, failed) => {
      progress.advance(settled, failed);
    },
    interruptedBy: run.signal,
  });
  if ("kind" in batched) {
    if (atomic) throw atomicNeedsBatches(batched.error);
    io.err.write(`note: ${noBatchRoute(batched.error)}: applying one PATCH per row instead\n`);
    report = await executePlan(plan, {
      // The ETag of an entry is its quantity, so the listed quantity is the precondition. A
      // pet the list did not show has none to keep: the server decides (404 when it has no
      // such pet).
      update: (petId, quantity, previous) =>
        client.updateInventory(petId, quantity, {
          ...(force || previous === undefined ? {} : { ifMatch: quantityETag(previous) }),
          reason,
        }),
      concurrency: options.concurrency,
      onSettled: (result) => {
        progress.tick(result.outcome === "failed" || result.outcome === "conflict");
      },
      interruptedBy: run.signal,
    });
  } else {
    report = batched;
  }
  progress.stop();
  await writeApplyReport(report, reportFormat, name, io);
  const signal = run.signal();
  if (signal !== undefined) throw new ApplyInterruptedError(report, signal, name);
  if (report.failed > 0 || report.notAttempted > 0) throw new ApplyIncompleteError(report);
}
