/**
 * Posting counts, as a batch job: a count session's review (count-run.ts) or a filled count
 * sheet (`apply --as-of`). Every count carries its ref, so that posting it again changes
 * nothing; a server without count changes is told apart (exit 2, nothing changed).
 */
import type { BatchRunReport } from "../../apply/batches.js";
import { COUNT_ROWS, type CountChange, type CountResult } from "../../apply/count-rows.js";
import {
  dryRunStopped,
  failingCount,
  interruptedHint,
  interruptedSummary,
  notAppliedSummary,
  RunIncompleteError,
  RunInterruptedError,
  stoppedRunMessage,
} from "../../apply/run-errors.js";
import { MAX_BATCH_CHANGES } from "../../api/limits.js";
import { isCountsRefusal } from "../../client/batch-errors.js";
import { UsageError } from "../../errors.js";
import { postedBeforeNote, writeCountReport } from "../../output/count.js";
import type { IoStreams } from "../../output/io-streams.js";
import { countOf } from "../../text/plural.js";
import type { BatchJob } from "./batch-job.js";

/** What posting counts needs besides the counts. */
export interface CountPosting {
  /** What the report names: `session ID`, or the file posted. */
  name: string;
  dryRun: boolean;
  /** One atomic batch (a session always; apply --as-of with --atomic). */
  atomic: boolean;
  reason: string;
  json: boolean;
  /** The session the counts are of; undefined for a file (`apply --as-of`). */
  sessionId?: string | undefined;
}

/**
 * Posting counts as a batch job, every count with its ref: `read` gives them (a session's
 * review, or a counts file read through `beforeSending`).
 */
export function countJob(
  read: BatchJob<CountChange, CountChange, CountResult>["read"],
  posting: CountPosting,
  io: IoStreams,
  onReport: (report: BatchRunReport<CountResult>) => void = () => undefined,
): BatchJob<CountChange, CountChange, CountResult> {
  const stays =
    posting.sessionId === undefined
      ? ""
      : `; session ${posting.sessionId} stays open (petstore inventory count --resume ${posting.sessionId})`;
  return {
    whileSending: "finishing the batch in flight",
    dryRun: posting.dryRun,
    atomic: posting.atomic,
    // Counts go in one request (a session), or few (a sheet): nothing to show progress of.
    progress: false,
    read,
    check(rows) {
      if (posting.atomic && rows.length > MAX_BATCH_CHANGES) {
        throw new UsageError(
          `${posting.name}: ${countOf(rows.length, "count")}, more than the ${MAX_BATCH_CHANGES} one atomic batch can hold; nothing was posted`,
          `post at most ${MAX_BATCH_CHANGES} counts at a time`,
        );
      }
    },
    prepare: (rows) => Promise.resolve(rows),
    rows: COUNT_ROWS,
    inputNotAttempted: COUNT_ROWS.notAttempted,
    async send(client, changes) {
      try {
        return await client.applyBatch(
          { atomic: posting.atomic, dryRun: posting.dryRun, changes },
          { reason: posting.reason },
        );
      } catch (error) {
        if (isCountsRefusal(error)) {
          throw new UsageError(
            `the server does not take count changes (${error instanceof Error ? error.message : String(error)}); nothing was changed${stays}`,
            "use a server that has count changes (petstore serve of this version does)",
          );
        }
        throw error;
      }
    },
    withoutBatchRoute(error) {
      throw new UsageError(
        `counts need the batch endpoint, and the server has none (POST /inventory/batch answered ${error.status}); nothing was changed${stays}`,
        "use a server that has count changes (petstore serve of this version does)",
      );
    },
    async writeReport(report) {
      onReport(report);
      await writeCountReport(
        report,
        posting.json ? "json" : "text",
        posting.name,
        io,
        posting.dryRun,
      );
      // A session's counts come from its journal and post the same numbers again; a file's
      // may have been edited since it was posted.
      if (posting.sessionId === undefined) {
        io.err.write(postedBeforeNote(report.results, posting.dryRun));
      }
    },
    incomplete(report) {
      if (report.failed === 0 && report.notAttempted === 0) return undefined;
      const failing = failingCount(report.results);
      const counts = countOf(report.results.length, "count");
      if (posting.dryRun) {
        if (report.stoppedBy !== undefined) return dryRunStopped(report.stoppedBy);
        const rejected = posting.atomic ? ", so the atomic batch would be rejected" : "";
        return new RunIncompleteError(
          `dry run: ${failing} of ${counts} would fail${rejected}; nothing was changed`,
          "the report says why each would fail",
        );
      }
      if (report.stoppedBy !== undefined) {
        return new RunIncompleteError(
          `${stoppedRunMessage(report.stoppedBy, notAppliedSummary(report, counts))}${stays}`,
          "post the same counts again once the server answers: a count posted once comes back as posted before, so only the others apply",
          report.stoppedBy,
        );
      }
      return new RunIncompleteError(
        report.rejected === true
          ? `the atomic batch was rejected: ${failing} of ${counts} failed (the report lists them); nothing was changed${stays}`
          : `${report.failed + report.notAttempted} of ${counts} not posted${stays}`,
        posting.sessionId === undefined
          ? report.rejected === true
            ? "fix the failed rows and post the file again: nothing of it was applied"
            : "fix the failed rows and post the file again: the counts posted now come back as posted before, so only the others apply"
          : "a count below 0: the pet sold more since its first line (whose read the count is as of) than was counted; give it what the shelf held then (ID =N: what it holds now plus what sold since), then post",
      );
    },
    interrupted: (report, signal) =>
      new RunInterruptedError(
        signal,
        interruptedSummary(report, signal, posting.name, posting.dryRun),
        interruptedHint(
          report,
          posting.dryRun,
          posting.dryRun
            ? "run the dry run again to see every count"
            : posting.sessionId === undefined
              ? "post the same counts again: a count posted once comes back as posted before"
              : `post it again with petstore inventory count --resume ${posting.sessionId}: a count posted once comes back as posted before`,
          `every count was posted before the run stopped: nothing is left to post${posting.sessionId === undefined ? "" : ` (session ${posting.sessionId} is posted)`}`,
        ),
      ),
  };
}

/** Every count of the report applied or posted before: none failed, none left unsent. */
export function isCompleteReport(
  report: Pick<BatchRunReport<CountResult>, "rejected" | "failed" | "notAttempted">,
): boolean {
  return report.rejected !== true && report.failed === 0 && report.notAttempted === 0;
}
