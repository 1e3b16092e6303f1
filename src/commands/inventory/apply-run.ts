/** `inventory apply`: validates a counts file, then applies only what differs. */
import { basename } from "node:path";
import {
  applyDryRunFailures,
  applyIncomplete,
  applyInterrupted,
} from "../../apply/apply-errors.js";
import { applyRows } from "../../apply/apply-batches.js";
import { BATCH_SIZE } from "../../apply/batch-size.js";
import type { CountChange, CountResult } from "../../apply/count-rows.js";
import { describeLocation, type CountRow, type CountsFormat } from "../../apply/counts.js";
import { dryRunOfPlan, executePlan, type RowResult } from "../../apply/execute.js";
import { planApply, type PlannedRow } from "../../apply/plan.js";
import {
  detectCountsFormat,
  parseCounts,
  readCountsText,
  sourceName,
} from "../../apply/read-counts.js";
import { fittedReason } from "../../api/change-reason.js";
import { MAX_BATCH_CHANGES } from "../../api/limits.js";
import { quantityETag } from "../../client/etag.js";
import { UsageError } from "../../errors.js";
import { type ApiError } from "../../client/errors.js";
import { writeApplyReport } from "../../output/apply.js";
import { writeApplyDryRun } from "../../output/apply-dry-run.js";
import { chooseRecordFormat } from "../../output/format.js";
import { countOf } from "../../text/plural.js";
import type { CommandContext } from "../../program/factory.js";
import { runBatchJob, type BatchJob } from "./batch-job.js";
import { countJob } from "./count-job.js";

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
  /** Each row is a count true as of this feed seq (a filled count sheet). */
  asOf?: bigint | undefined;
}

/**
 * The reason a run gives when none was asked for: `apply counts.csv` (the file's name, without
 * its folders), `apply stdin`; cut and made printable to fit the rule of a reason.
 */
export function defaultApplyReason(file: string): string {
  return fittedReason(`apply ${file === "-" ? "stdin" : basename(file)}`);
}

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
 * Validates the whole file (nothing is sent if any row is bad), fetches the inventory once,
 * and sends only the rows that differ: through the batch endpoint in requests of up to 1,000
 * changes (or one atomic request), else, against a server without it, one PATCH per row.
 * Prints the report; exits 7 after it when some rows failed, and 130/143 after it when SIGINT
 * or SIGTERM came, whatever the run was doing: reading the file, fetching the stock, or
 * sending (the writes in flight finish). A dry run asks the server to evaluate the same
 * batches (`dryRun`) and exits as the real run would; against a server without the batch
 * endpoint it prints the plan (what differs from the stock read) and asks nothing.
 */
export async function runInventoryApply(
  file: string,
  options: InventoryApplyOptions,
  context: CommandContext,
): Promise<void> {
  if (options.asOf === undefined) {
    await runBatchJob(applyJob(file, options, context), context);
    return;
  }
  await runBatchJob(applyAsOfJob(file, options.asOf, options, context), context);
}

/**
 * `inventory apply --as-of SEQ`: every row a count true as of SEQ (a filled count sheet), with
 * the ref `count:SEQ:<petId>`, so that posting the same sheet again changes nothing.
 */
function applyAsOfJob(
  file: string,
  asOf: bigint,
  options: InventoryApplyOptions,
  context: CommandContext,
): BatchJob<CountChange, CountChange, CountResult> {
  // Not "drop --as-of" as the way out: a count sheet set as plain quantities undoes the sales
  // since it was printed.
  for (const [flag, given, hint] of [
    [
      "--force",
      options.force,
      "leave --force out: a count is never conditional on the quantity read, so there is nothing to force",
    ],
    [
      "--max-changes",
      options.maxChanges,
      "leave --max-changes out: how many counts change is known once the server reconciles them; --dry-run shows it without changing anything",
    ],
  ] as const) {
    if (given !== undefined && given !== false) {
      throw new UsageError(
        `--as-of posts counts, which the server reconciles with what moved since: not with ${flag}`,
        hint,
      );
    }
  }
  const name = sourceName(file);
  return countJob(
    async (beforeSending) => {
      const text = await beforeSending(() => readCountsText(file, context.input));
      const rows = parseCounts(text, detectCountsFormat(file, text, options.format), file, asOf);
      return rows.map((row) => ({
        petId: row.petId,
        counted: row.quantity,
        asOf,
        ref: `count:${asOf}:${row.petId}`,
        location: describeLocation(row.location),
      }));
    },
    {
      name,
      dryRun: options.dryRun === true,
      atomic: options.atomic === true,
      reason: options.reason ?? defaultApplyReason(file),
      json: options.json === true,
    },
    context.io,
  );
}

/** `inventory apply` as a batch job: a counts file, planned against the stock it reads. */
function applyJob(
  file: string,
  options: InventoryApplyOptions,
  context: CommandContext,
): BatchJob<CountRow, PlannedRow, RowResult> {
  const { io } = context;
  const name = sourceName(file);
  const dryRun = options.dryRun === true;
  const atomic = options.atomic === true;
  const force = options.force === true;
  const reason = options.reason ?? defaultApplyReason(file);
  const recordFormat = chooseRecordFormat(options, io);
  const reportFormat = options.json === true ? "json" : "text";
  let changes = 0;
  return {
    whileSending: "starting no more changes; finishing those in flight",
    dryRun,
    atomic,
    async read(beforeSending) {
      const text = await beforeSending(() => readCountsText(file, context.input));
      return parseCounts(text, detectCountsFormat(file, text, options.format), file);
    },
    async prepare(rows, client, beforeSending) {
      const stock = await beforeSending(() => client.listInventoryQuantities());
      const plan = planApply(rows, stock);
      changes = plan.changes;
      if (atomic && plan.changes > MAX_BATCH_CHANGES) {
        throw new UsageError(
          `${name}: ${countOf(plan.changes, "entry", "entries")} would change, more than the ${MAX_BATCH_CHANGES} one atomic batch can hold; nothing was applied`,
          `split the file into parts of at most ${MAX_BATCH_CHANGES} changes, or run without --atomic (requests of ${BATCH_SIZE} changes, each applied alone)`,
        );
      }
      return plan.rows;
    },
    refusal() {
      if (options.maxChanges === undefined || changes <= options.maxChanges) return undefined;
      const overLimit = `${countOf(changes, "entry", "entries")} would change, more than --max-changes ${options.maxChanges}`;
      return dryRun
        ? new UsageError(
            `dry run: ${overLimit}: a real run would refuse and apply nothing`,
            "if the changes are expected, raise --max-changes",
          )
        : new UsageError(
            `${name}: ${overLimit}; nothing was applied`,
            "check the file (--dry-run shows every change); if the changes are expected, raise --max-changes",
          );
    },
    rows: applyRows(force),
    inputNotAttempted: (row, failure) => ({
      petId: row.petId,
      previous: undefined,
      desired: row.quantity,
      outcome: "not_attempted",
      failure,
    }),
    send: (client, batch) =>
      client.applyBatch({ atomic, dryRun, changes: batch }, dryRun ? undefined : { reason }),
    async withoutBatchRoute(error, rows, run) {
      if (atomic) throw atomicNeedsBatches(error);
      if (dryRun) {
        io.err.write(
          `note: ${noBatchRoute(error)}: this dry run shows what differs from the stock it read; the server was not asked whether each change would apply\n`,
        );
        return dryRunOfPlan({ rows: [...rows], changes });
      }
      io.err.write(`note: ${noBatchRoute(error)}: applying one PATCH per row instead\n`);
      return executePlan(
        { rows: [...rows], changes },
        {
          // The ETag of an entry is its quantity, so the listed quantity is the precondition.
          // A pet the list did not show has none to keep: the server decides (404 when it has
          // no such pet).
          update: (petId, quantity, previous) =>
            run.client.updateInventory(petId, quantity, {
              ...(force || previous === undefined ? {} : { ifMatch: quantityETag(previous) }),
              reason,
            }),
          concurrency: options.concurrency,
          onSettled: (result) => {
            run.progress.tick(result.outcome === "failed" || result.outcome === "conflict");
          },
          interruptedBy: run.interruptedBy,
        },
      );
    },
    writeReport: (report) =>
      dryRun
        ? writeApplyDryRun(report, recordFormat, io)
        : writeApplyReport(report, reportFormat, name, io),
    incomplete(report) {
      if (dryRun) return report.failed > 0 ? applyDryRunFailures(report) : undefined;
      return report.failed > 0 || report.notAttempted > 0 ? applyIncomplete(report) : undefined;
    },
    interrupted: (report, signal) => applyInterrupted(report, signal, name, dryRun),
  };
}
