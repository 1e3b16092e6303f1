/**
 * Reads a changes file for `inventory adjust --file` (or stdin for `-`), validates every row
 * before anything is sent (any problem is a UsageError, exit 2, listing where), and gives each
 * row without a `ref` the one that makes it apply once however often the file is run.
 */
import type { CountsFormat } from "./counts.js";
import { parseCsvDeltas } from "./csv-deltas.js";
import type { DeltaRow, FileDeltaRow } from "./deltas.js";
import { parseJsonDeltas } from "./json-deltas.js";
import { problemsError } from "./read-counts.js";

/**
 * The first 16 hex digits of the SHA-256 of the file's bytes (its text as UTF-8, which is the
 * file's bytes for any UTF-8 file): the same file gives the same refs on every run, any other
 * file other refs.
 */
export function fileDigest(text: string): string {
  // Loaded where it is used: an ESM import of node:crypto costs every CLI call its facade.
  const { createHash } = process.getBuiltinModule("node:crypto");
  return createHash("sha256").update(text, "utf8").digest("hex").slice(0, 16);
}

/** The ref of a row the file gives none: `<digest>:<row number>`. */
export function defaultRef(digest: string, row: number): string {
  return `${digest}:${row}`;
}

/**
 * Parses and validates a changes file; throws a UsageError naming every bad line. Rows keep
 * the file's order; each has its ref (the file's, or the default one).
 */
export function parseDeltas(text: string, format: CountsFormat, name: string): DeltaRow[] {
  const parsed = format === "csv" ? parseCsvDeltas(text) : parseJsonDeltas(text);
  if (parsed.problems.length > 0) throw problemsError(name, parsed.problems);
  let digest: string | undefined;
  const rows = parsed.rows as (FileDeltaRow | DeltaRow)[];
  for (const row of rows) {
    if (row.ref === undefined) {
      digest ??= fileDigest(text);
      row.ref = defaultRef(digest, row.row);
    }
  }
  return rows as DeltaRow[];
}
