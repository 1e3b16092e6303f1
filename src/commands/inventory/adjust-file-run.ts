/**
 * `inventory adjust --file F`: a file of relative changes (a day's sales, a delivery), each
 * applied once however often the file is run, through the batch endpoint.
 */
import { basename } from "node:path";
import { ADJUST_ROWS, type AdjustRowResult } from "../../apply/adjust-batches.js";
import { adjustIncomplete, adjustInterrupted } from "../../apply/adjust-errors.js";
import { BATCH_SIZE } from "../../apply/batch-size.js";
import type { CountsFormat } from "../../apply/counts.js";
import { parseDeltas, type RowRefs } from "../../apply/read-deltas.js";
import { detectCountsFormat, readCountsText, sourceName } from "../../apply/read-counts.js";
import { fittedReason } from "../../api/change-reason.js";
import { serializeBatchRequest } from "../../api/batch.js";
import { BATCH_BODY_LIMIT, MAX_BATCH_CHANGES } from "../../api/limits.js";
import { batchChangeOf, type DeltaRow } from "../../apply/deltas.js";
import { UsageError } from "../../errors.js";
import { writeAdjustReport } from "../../output/adjust-file.js";
import { countOf } from "../../text/plural.js";
import type { CommandContext } from "../../program/factory.js";
import { runBatchJob, type BatchJob } from "./batch-job.js";

/** The options of `inventory adjust --file`, as its command definition parses them. */
export interface InventoryAdjustFileOptions {
  format?: CountsFormat | undefined;
  dryRun?: boolean | undefined;
  /** Every row in one atomic batch: all applied, or none. */
  atomic?: boolean | undefined;
  json?: boolean | undefined;
  /** Why, kept in each changed entry's history; default `adjust <file name>`. */
  reason?: string | undefined;
  /** `--ref-prefix P`: a row without a ref gets `P:<row>`. */
  refPrefix?: string | undefined;
  /** false with `--no-ref`: a row without a ref goes without one (applied every run). */
  ref?: boolean | undefined;
}

/**
 * What rows without a ref get, from the flags: `--ref-prefix` and `--no-ref` together are a
 * UsageError (exit 2), since they say opposite things.
 */
export function rowRefsOf(options: InventoryAdjustFileOptions): RowRefs {
  const noRef = options.ref === false;
  if (options.refPrefix !== undefined && noRef) {
    throw new UsageError(
      "--ref-prefix and --no-ref say opposite things: give one",
      "--ref-prefix P makes each row without a ref apply once (as P:<row>); --no-ref applies it every time the file runs",
    );
  }
  if (options.refPrefix !== undefined) return { kind: "prefix", prefix: options.refPrefix };
  return noRef ? { kind: "none" } : { kind: "required" };
}

/** The reason a run gives when none was asked for: `adjust sales.csv`, `adjust stdin`. */
export function defaultAdjustReason(file: string): string {
  return fittedReason(`adjust ${file === "-" ? "stdin" : basename(file)}`);
}

/**
 * Refuses (exit 2) an atomic batch whose body would be more than the server takes: 10,000
 * rows with long refs can pass 2 MiB, and the server would answer 413 having applied nothing.
 */
function checkAtomicBody(rows: readonly DeltaRow[], name: string): void {
  const changes = rows.map(batchChangeOf);
  const bytes = Buffer.byteLength(serializeBatchRequest({ atomic: true, dryRun: false, changes }));
  if (bytes > BATCH_BODY_LIMIT) {
    throw new UsageError(
      `${name}: as one atomic batch its ${countOf(rows.length, "row")} take ${bytes} bytes, more than the ${BATCH_BODY_LIMIT} one request can carry; nothing was applied`,
      "split the file, or shorten its refs, or run without --atomic (requests of ${BATCH_SIZE} rows, each applied alone)",
    );
  }
}

/**
 * Validates the whole file (nothing is sent if any row is bad), then sends every row with its
 * ref in requests of up to 1,000 changes (or one atomic request, at most 10,000 rows), and
 * prints the report. A server without the batch endpoint is a UsageError (exit 2, nothing
 * changed): without refs kept by the server a file could apply twice. Exits 7 after the report
 * when rows failed (or would, in a dry run), 130/143 after it when SIGINT or SIGTERM came,
 * whatever the run was doing: reading the file, or sending (the batch in flight finishes).
 */
export async function runInventoryAdjustFile(
  file: string,
  options: InventoryAdjustFileOptions,
  context: CommandContext,
): Promise<void> {
  await runBatchJob(adjustFileJob(file, options, context), context);
}

/** `inventory adjust --file` as a batch job: every row sent as it is, with its ref. */
function adjustFileJob(
  file: string,
  options: InventoryAdjustFileOptions,
  context: CommandContext,
): BatchJob<DeltaRow, DeltaRow, AdjustRowResult> {
  const { io } = context;
  const name = sourceName(file);
  const refs = rowRefsOf(options);
  const format = options.json === true ? "json" : "text";
  const dryRun = options.dryRun === true;
  const atomic = options.atomic === true;
  const reason = options.reason ?? defaultAdjustReason(file);
  return {
    whileSending: "sending no more changes; finishing the batch in flight",
    dryRun,
    atomic,
    async read(beforeSending) {
      const text = await beforeSending(() => readCountsText(file, context.input));
      return parseDeltas(text, detectCountsFormat(file, text, options.format), name, refs);
    },
    check(rows) {
      if (!atomic) return;
      if (rows.length > MAX_BATCH_CHANGES) {
        throw new UsageError(
          `${name}: ${countOf(rows.length, "row")}, more than the ${MAX_BATCH_CHANGES} one atomic batch can hold; nothing was applied`,
          `split the file into parts of at most ${MAX_BATCH_CHANGES} rows, or run without --atomic (requests of ${BATCH_SIZE} rows, each applied alone)`,
        );
      }
      checkAtomicBody(rows, name);
    },
    prepare: (rows) => Promise.resolve(rows),
    rows: ADJUST_ROWS,
    inputNotAttempted: ADJUST_ROWS.notAttempted,
    send: (client, changes) => client.applyBatch({ atomic, dryRun, changes }, { reason }),
    withoutBatchRoute(error) {
      throw new UsageError(
        `adjust --file needs the batch endpoint, and the server has no batch endpoint (POST /inventory/batch answered ${error.status}); nothing was changed`,
        "use a server that has POST /inventory/batch (petstore serve does); the server keeps each row's ref there, which is what applies a file once however often it runs",
      );
    },
    writeReport: (report) => writeAdjustReport(report, format, name, io, dryRun),
    incomplete: (report) =>
      report.failed > 0 || report.notAttempted > 0
        ? adjustIncomplete(report, dryRun, options.refPrefix)
        : undefined,
    interrupted: (report, signal) =>
      adjustInterrupted(report, signal, name, dryRun, options.refPrefix),
  };
}
