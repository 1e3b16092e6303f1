/**
 * Relative changes read from a file (`inventory adjust --file`): a day's sales, a delivery.
 * Each row is a pet, a delta and a business reference that makes it apply once, ever.
 */
import { isValidRef, MAX_QUANTITY, MAX_REF_LENGTH, readWrittenWholeNumber } from "../api/limits.js";
import type { BatchChange } from "../api/types.js";
import type { CountProblem, RowLocation } from "./counts.js";
import type { JsonEntryShape } from "./json-rows.js";

/** One change of a file: add `delta` to `petId`'s stock, once for `ref` (every run without). */
export interface DeltaRow {
  petId: bigint;
  /** A non-zero whole number from -MAX_QUANTITY to MAX_QUANTITY. */
  delta: number;
  /**
   * The row's `ref`: the file's own, or `<--ref-prefix>:<row>` (read-deltas.ts); undefined only
   * where the file gives none and the run said `--no-ref`.
   */
  ref: string | undefined;
  location: RowLocation;
  /** The row's number among the data rows, from 1 (no header, no blank line counted). */
  row: number;
}

/** What parsing a changes file yields: every valid row, and every problem (none means valid). */
export interface ParsedDeltas {
  /** Each as the file has it: `ref` undefined when the file gives none. */
  rows: DeltaRow[];
  problems: CountProblem[];
}

/** The header of a CSV changes file as messages name it, and the object of a JSON one. */
export const DELTAS_CSV_HEADER = "petId,delta,ref";
export const DELTAS_JSON_SHAPE: JsonEntryShape = {
  text: '{"petId": ..., "delta": ..., "ref": ...}',
  fields: ["petId", "delta", "ref"],
};

type Reading<T> = { ok: true; value: T } | { ok: false; empty: boolean; reason: string };

const DELTA_RULE = `a non-zero whole number from -${MAX_QUANTITY} to ${MAX_QUANTITY}`;

/**
 * A delta written in a file: an optional sign (`+5`, `-1`, `5`), then a whole number under
 * the one rule (no leading zeros), not 0, at most MAX_QUANTITY either way.
 */
export function readDelta(text: string): Reading<number> {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, empty: true, reason: `expected ${DELTA_RULE}` };
  const sign = trimmed[0] === "-" || trimmed[0] === "+" ? trimmed[0] : "";
  const digits = trimmed.slice(sign.length);
  // The sign goes with the number: "- 1" is refused, as the command line refuses it.
  if (digits !== digits.trim())
    return { ok: false, empty: false, reason: `expected ${DELTA_RULE}` };
  const magnitude = readWrittenWholeNumber(digits, 0n, BigInt(MAX_QUANTITY));
  if (!magnitude.ok) {
    const reason = magnitude.reason.startsWith("leading zeros")
      ? magnitude.reason.replace("write ", `write ${sign}`)
      : `expected ${DELTA_RULE}`;
    return { ok: false, empty: false, reason };
  }
  if (magnitude.value === 0n) {
    return { ok: false, empty: false, reason: "a delta of 0 changes nothing" };
  }
  const value = Number(magnitude.value);
  return { ok: true, value: sign === "-" ? -value : value };
}

/** The problem with a `ref`, or undefined when the server will keep it. */
export function refProblem(ref: string): string | undefined {
  return isValidRef(ref)
    ? undefined
    : `expected 1 to ${MAX_REF_LENGTH} visible ASCII characters (no spaces)`;
}

/** The batch change that carries a row: its ref only when it has one. */
export function batchChangeOf(row: DeltaRow): BatchChange {
  return row.ref === undefined
    ? { petId: row.petId, delta: row.delta }
    : { petId: row.petId, delta: row.delta, ref: row.ref };
}
