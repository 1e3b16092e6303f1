/**
 * What `inventory count` prints: each line's echo in a session, the review before posting, the
 * report of the counts posted (also `apply --as-of`'s), the list of sessions, a count sheet.
 */
import type { BatchRunReport } from "../apply/batches.js";
import type { CountResult } from "../apply/count-rows.js";
import type { InventoryItem } from "../api/types.js";
import type { CountedPet, SessionTotals } from "../count/session.js";
import { countOf } from "../text/plural.js";
import { dryRunWord } from "./apply-dry-run.js";
import { csvLine, tsvLine } from "./delimited.js";
import { localTime } from "../text/local-time.js";
import type { IoStreams } from "./io-streams.js";
import { rejectedBatchNote } from "./rejected-batch.js";
import { writeJsonReport } from "./json.js";
import { notAttemptedSection, notAttemptedSummary, reportHeadJson } from "./not-attempted.js";
import { renderTable } from "./table.js";

function signed(value: number): string {
  return value > 0 ? `+${value}` : value < 0 ? String(value) : "±0";
}

/** A variance, green when nil, red when off. */
function varianceText(variance: number, io: IoStreams): string {
  const text = signed(variance);
  return variance === 0 ? io.style.green(text) : io.style.red(text);
}

/** The echo of an accepted line: `pet 42 (available): 3 counted; book 5 as of seq 1234`. */
export function countEcho(pet: CountedPet, io: IoStreams): string {
  const { read } = pet;
  return `pet ${pet.petId} (${read.status}): ${io.style.bold(`${pet.counted} counted`)}; book ${read.book} as of seq ${read.asOf}\n`;
}

/** The totals line: the review's last, and the answer to `?`. */
export function totalsLine(totals: SessionTotals): string {
  return `${countOf(totals.pets, "pet")}, ${countOf(totals.units, "unit")} counted, net variance ${signed(totals.netVariance)}, ${countOf(totals.petsOff, "pet")} off\n`;
}

/**
 * How many rows a table at a terminal shows before leaving the rest to `--json`: a stocktake of
 * thousands of pets is read for the pets off, and a table of thousands takes seconds to draw.
 */
const MAX_ROWS_SHOWN = 50;

/**
 * The review: every pet to post with its book, count and variance, then the totals. More than
 * MAX_ROWS_SHOWN pets: the pets off only (up to that many), and a line saying what is left out.
 */
export function reviewText(
  all: readonly { pet: CountedPet; uncounted: boolean }[],
  totals: SessionTotals,
  io: IoStreams,
): string {
  const long = all.length > MAX_ROWS_SHOWN;
  const rows = long
    ? all.filter(({ pet }) => pet.counted !== pet.read.book).slice(0, MAX_ROWS_SHOWN)
    : all;
  const omitted = long
    ? `${io.symbols.ellipsis} ${all.length - rows.length} more not shown (${rows.length < totals.petsOff ? "some of them off" : "none of them off"}): --json lists every count\n`
    : "";
  const table = renderTable(
    {
      head: ["petId", "status", "book", "counted", "variance", ""],
      rows: rows.map(({ pet, uncounted }) => [
        pet.petId.toString(),
        pet.read.status,
        String(pet.read.book),
        String(pet.counted),
        varianceText(pet.counted - pet.read.book, io),
        uncounted ? io.style.yellow("not counted: 0") : "",
      ]),
      rightAligned: [0, 2, 3, 4],
    },
    io,
  );
  return `${table}${omitted}${totalsLine(totals)}`;
}

/** A count's pet, as the report's lines name it. */
function countName(result: CountResult): string {
  const where = result.count.location === undefined ? "" : ` (${result.count.location})`;
  return `pet ${result.count.petId}${where}`;
}

/** How many pets a note names before "and N more". */
const PETS_NAMED = 5;

/**
 * The note after posting a file of counts some of which were posted before (their refs): they
 * were not applied again, whatever the file says of them now, and a count corrected since is
 * corrected by its difference. Empty when none was.
 */
export function postedBeforeNote(results: readonly CountResult[], dryRun: boolean): string {
  const before = results.filter((result) => result.outcome === "duplicate");
  const first = before[0];
  if (first === undefined) return "";
  const named = before
    .slice(0, PETS_NAMED)
    .map((result) => result.count.petId.toString())
    .join(", ");
  const more = before.length > PETS_NAMED ? ` and ${before.length - PETS_NAMED} more` : "";
  const one = before.length === 1;
  const pets = `${one ? "pet" : "pets"} ${named}${more}`;
  const them = one ? "it" : "them";
  return (
    `note: ${countOf(before.length, "count")} (${pets}) ${one ? "was" : "were"} posted before as of seq ${first.count.asOf}: ` +
    `a count is applied once, so this run ${dryRun ? "would not apply" : "did not apply"} ${them} again, whatever the file says now; ` +
    `if ${one ? "it" : "one"} was corrected since it was posted, add the difference: petstore inventory adjust PETID DELTA\n`
  );
}

function resultJson(result: CountResult, dryRun: boolean): unknown {
  const { count } = result;
  return {
    petId: count.petId,
    outcome: dryRun ? dryRunWord(result.outcome) : result.outcome,
    asOf: count.asOf,
    book: result.book,
    since: result.since,
    counted: count.counted,
    variance: result.variance,
    quantity: result.now,
    ref: count.ref,
    ...(result.failure === undefined ? {} : { reason: result.failure.reason }),
    ...(result.failure?.unanswered === true ? { unanswered: true } : {}),
  };
}

/**
 * The report of counts posted (or, in a dry run, evaluated): JSON with `--json`, as apply's;
 * else a summary line, each count (book, since, counted, now: a table at a terminal, a
 * tab-separated line each in a pipe), and every failure.
 */
export async function writeCountReport(
  report: BatchRunReport<CountResult>,
  format: "json" | "text",
  name: string,
  io: IoStreams,
  dryRun: boolean,
): Promise<void> {
  if (format === "json") {
    await writeJsonReport(io.out, reportHeadJson(report, dryRun), report.results, (result) =>
      resultJson(result, dryRun),
    );
    return;
  }
  const { style } = io;
  const duplicates = report.results.filter((result) => result.outcome === "duplicate").length;
  const already = duplicates > 0 ? ` (${duplicates} posted before)` : "";
  const rejected = rejectedBatchNote(report, dryRun);
  const head = dryRun
    ? `dry run of ${name}: ${report.changed} would change, ${report.unchanged} unchanged${already}, ${report.failed} would fail${rejected}`
    : `${name}: ${style.green(`${report.changed} changed`)}, ${report.unchanged} unchanged${already}, ${report.failed > 0 ? style.red(`${report.failed} failed`) : "0 failed"}${rejected}`;
  let text = `${head}${notAttemptedSummary(report)}\n`;
  const sent = report.results.filter((result) => result.book !== null);
  if (sent.length > 0 && !io.isTTY) {
    // Piped: one tab-separated line a count (petId, book, since, counted, variance, now).
    text += sent
      .map((result) =>
        tsvLine([
          result.count.petId,
          result.book ?? "",
          result.since ?? "",
          result.count.counted,
          result.variance ?? "",
          result.now ?? "",
        ]),
      )
      .join("");
  } else if (sent.length > 0) {
    const shown = sent.slice(0, MAX_ROWS_SHOWN);
    text += renderTable(
      {
        head: ["petId", "book", "since", "counted", "variance", dryRun ? "would be" : "now", ""],
        rows: shown.map((result) => [
          result.count.petId.toString(),
          String(result.book),
          result.since === null ? "" : signed(result.since),
          String(result.count.counted),
          result.variance === null ? "" : varianceText(result.variance, io),
          result.now === null ? "" : String(result.now),
          result.outcome === "duplicate" ? "posted before" : "",
        ]),
        rightAligned: [0, 1, 2, 3, 4, 5],
      },
      io,
    );
    if (shown.length < sent.length) {
      text += `${io.symbols.ellipsis} ${sent.length - shown.length} more: --json lists every count\n`;
    }
  }
  const failed = report.results.filter(
    (result) => result.outcome === "failed" && result.failure?.batchRejected !== true,
  );
  if (failed.length > 0) {
    text += `${dryRun ? "would fail" : "failed"}:\n`;
    text += failed
      .map((result) => `  ${countName(result)}: ${style.red(result.failure?.reason ?? "failed")}\n`)
      .join("");
  }
  text += notAttemptedSection(
    report,
    {
      interrupted: "post the same counts again",
      serverFailing: "post the same counts again later",
    },
    (rows) => rows.map((result) => `  ${countName(result)}\n`).join(""),
  );
  io.out.write(text);
}

/** One session as `count --sessions` lists it. */
export interface SessionListing {
  id: string;
  server: string;
  startedAt: string;
  pets: number;
  state: "open" | "posted";
}

/** The sessions: a table at a terminal, tab-separated lines in a pipe. */
export function writeSessions(sessions: readonly SessionListing[], io: IoStreams): void {
  if (!io.isTTY) {
    io.out.write(
      sessions.map((s) => tsvLine([s.id, s.state, s.pets, s.startedAt, s.server])).join(""),
    );
    return;
  }
  if (sessions.length === 0) {
    io.out.write("no count sessions\n");
    return;
  }
  io.out.write(
    renderTable(
      {
        head: ["session", "state", "pets", "started", "server"],
        // In the machine's time zone, as history's table shows times; ISO when piped.
        rows: sessions.map((s) => [
          s.id,
          s.state,
          String(s.pets),
          localTime(s.startedAt),
          s.server,
        ]),
        rightAligned: [2],
        // The server's URL, narrowed to fit the terminal.
        wrappable: [4],
      },
      io,
    ),
  );
}

/**
 * A count sheet: its heading says as of which seq its books are and the command that posts it
 * filled in; then petId, status, book and an empty `counted` column (CSV with `--csv`, else
 * tab-separated in a pipe, a table at a terminal).
 */
export function writeCountSheet(
  items: readonly InventoryItem[],
  asOf: bigint,
  csv: boolean,
  io: IoStreams,
): void {
  const heading = [
    `# count sheet as of seq ${asOf}: write each pet's count in the counted column, leave a pet not counted empty, then post it with`,
    `# petstore inventory apply FILE --as-of ${asOf}`,
  ];
  if (csv || !io.isTTY) {
    const line = csv ? csvLine : tsvLine;
    io.out.write(
      [
        ...heading.map((text) => `${text}\n`),
        line(["petId", "status", "book", "counted"]),
        ...items.map((item) => line([item.petId, item.status, item.quantity, ""])),
      ].join(""),
    );
    return;
  }
  io.out.write(
    `${heading.join("\n")}\n` +
      renderTable(
        {
          head: ["petId", "status", "book", "counted"],
          rows: items.map((item) => [
            item.petId.toString(),
            item.status,
            String(item.quantity),
            "",
          ]),
          rightAligned: [0, 2],
        },
        io,
      ),
  );
}
