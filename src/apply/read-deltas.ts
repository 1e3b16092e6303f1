/**
 * Reads a changes file for `inventory adjust --file` (or stdin for `-`) and validates every row
 * before anything is sent (any problem is a UsageError, exit 2, listing where). A row's ref is
 * what makes it apply once, so it is never guessed: it is the file's own, or made from the
 * `--ref-prefix` the command was given; `--no-ref` says a row without one applies every run.
 * A file's bytes or name are no identity: two days' sales can be the same bytes at one path.
 */
import { isValidRef, MAX_REF_LENGTH } from "../api/limits.js";
import { UsageError } from "../errors.js";
import { describeLocation, type CountProblem, type CountsFormat } from "./counts.js";
import { parseCsvDeltas } from "./csv-deltas.js";
import type { DeltaRow } from "./deltas.js";
import { parseJsonDeltas } from "./json-deltas.js";
import { problemsError } from "./read-counts.js";

/**
 * What a row without a ref of its own gets, as the command line says (docs/scripts.md,
 * "Applying a sales file exactly once"): nothing said is a refusal; `--ref-prefix P` gives it
 * `P:<row>`; `--no-ref` sends it without one, so it applies every time the file runs.
 */
export type RowRefs = { kind: "required" } | { kind: "prefix"; prefix: string } | { kind: "none" };

/** The ref `--ref-prefix P` gives the row numbered `row` (from 1): `P:<row>`. */
export function prefixedRef(prefix: string, row: number): string {
  const ref = `${prefix}:${row}`;
  // A 100-character prefix leaves 27 characters for ":" and the row number.
  if (!isValidRef(ref)) throw new RangeError(`ref longer than ${MAX_REF_LENGTH}: ${ref}`);
  return ref;
}

/** What to do about rows without a ref, said where a person or a cron line sees it. */
export const MISSING_REF_HINT =
  'give each row its own ref (a ref column: petId,delta,ref), or name this run with --ref-prefix, as a cron line would: --ref-prefix "till-1/$(date +%F)" gives the rows till-1/2026-11-26:1, :2, ...; or --no-ref to apply these deltas again every time the file runs';

/** Refuses a file with rows that have no ref when the command line gave no way to make one. */
function missingRefError(name: string, missing: readonly DeltaRow[], total: number): UsageError {
  const [first] = missing;
  const where = first === undefined ? "" : ` ${describeLocation(first.location)}`;
  const others =
    missing.length === 1
      ? ""
      : ` (${missing.length === total ? "no row has one" : `${missing.length} of ${total} rows have none`})`;
  return new UsageError(
    `${name}${where}: a row without a ref${others}, and neither --ref-prefix nor --no-ref was given; nothing was sent`,
    MISSING_REF_HINT,
  );
}

/** A problem for every row whose ref an earlier row of the file already has. */
function findDuplicateRefs(rows: readonly DeltaRow[]): CountProblem[] {
  const first = new Map<string, DeltaRow>();
  const problems: CountProblem[] = [];
  for (const row of rows) {
    if (row.ref === undefined) continue;
    const seen = first.get(row.ref);
    if (seen === undefined) {
      first.set(row.ref, row);
    } else {
      problems.push({
        location: row.location,
        message: `ref ${JSON.stringify(row.ref)} again: ${describeLocation(seen.location)} has it too`,
      });
    }
  }
  return problems;
}

/**
 * Parses and validates a changes file; throws a UsageError naming every bad line, the first
 * row without a ref when `refs` requires one, or every pair of rows with one ref (the server
 * would keep the first and answer the second `duplicate`: a sale lost). Rows keep the file's
 * order, each with its ref: the file's, `P:<row>`, or none (`--no-ref`).
 */
export function parseDeltas(
  text: string,
  format: CountsFormat,
  name: string,
  refs: RowRefs,
): DeltaRow[] {
  const parsed = format === "csv" ? parseCsvDeltas(text) : parseJsonDeltas(text);
  if (parsed.problems.length > 0) throw problemsError(name, parsed.problems);
  const rows = parsed.rows;
  if (refs.kind === "required") {
    const missing = rows.filter((row) => row.ref === undefined);
    if (missing.length > 0) throw missingRefError(name, missing, rows.length);
  }
  if (refs.kind === "prefix") {
    for (const row of rows) row.ref ??= prefixedRef(refs.prefix, row.row);
  }
  const duplicates = findDuplicateRefs(rows);
  if (duplicates.length > 0) {
    throw problemsError(
      name,
      duplicates,
      "give each row a ref of its own: a ref names one change (the server applies a ref once per pet, so a second row of that pet with it would be dropped as a duplicate); fix the file and run again; nothing was sent",
    );
  }
  return rows;
}
