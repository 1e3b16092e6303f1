/** JSON output that keeps int64 values exact (bigint is written as a plain JSON number). */
import { isLosslessNumber, stringify } from "lossless-json";
import { writeWithRoom, type TextSink } from "./io-streams.js";

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Serializes `value` as indented JSON plus a newline. JSON.stringify writes it when every
 * bigint is a safe integer (written then as the same digits a number gives); lossless-json,
 * ~10 times slower on a large inventory in a CLI process, writes the rest.
 */
export function toJson(value: unknown): string {
  let unwritable = 0;
  const text = JSON.stringify(
    value,
    (_key, field: unknown) => {
      if (typeof field === "bigint" && field <= MAX_SAFE && field >= -MAX_SAFE) {
        return Number(field);
      }
      if (typeof field !== "bigint" && !isLosslessNumber(field)) return field;
      // JSON.stringify cannot write it: lossless-json writes the whole value instead.
      unwritable += 1;
      return null;
    },
    2,
  );
  return `${(unwritable === 0 ? text : stringify(value, null, 2)) ?? "null"}\n`;
}

/** How many results of a report are written at once. */
const RESULTS_PER_WRITE = 1_000;

/**
 * A flat row with its bigints as numbers, when every one is a safe integer (the digits are the
 * same), so that JSON.stringify writes it without a replacer; undefined when one is not.
 */
function withSafeNumbers(row: unknown): unknown {
  if (typeof row !== "object" || row === null) return row;
  const fields = row as Record<string, unknown>;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === "bigint") {
      if (value > MAX_SAFE || value < -MAX_SAFE) return undefined;
      fields[key] = Number(value);
    } else if (typeof value === "object" && value !== null) {
      return undefined;
    }
  }
  return fields;
}

/**
 * Writes a report `{...head, "results": [...]}` exactly as toJson would, a thousand results
 * at a time, each once the last has gone (writeWithRoom): a run of 100,000 rows never holds
 * its whole report as one text (and one object per row) at once. `result` gives each row's JSON value (a new, flat object) when it is
 * written; a thousand of them are written by one JSON.stringify, without a replacer when every
 * id in them is a safe integer.
 */
export async function writeJsonReport<T>(
  out: TextSink,
  head: Readonly<Record<string, unknown>>,
  rows: readonly T[],
  result: (row: T) => unknown,
): Promise<void> {
  // The head's fields without its closing "\n}\n" (it has at least one field).
  const open = `${toJson(head).slice(0, -3)},\n  "results": [`;
  if (rows.length === 0) {
    out.write(`${open}]\n}\n`);
    return;
  }
  out.write(`${open}\n`);
  for (let start = 0; start < rows.length; start += RESULTS_PER_WRITE) {
    const end = Math.min(start + RESULTS_PER_WRITE, rows.length);
    const values: unknown[] = [];
    let exact = true;
    for (let index = start; index < end; index += 1) {
      const value = result(rows[index] as T);
      const plain = exact ? withSafeNumbers(value) : undefined;
      if (plain === undefined) exact = false;
      values.push(plain ?? value);
    }
    // "[\n  {...},\n  {...}\n]", indented one level deeper and without its brackets.
    const array = exact ? JSON.stringify(values, null, 2) : toJson(values).slice(0, -1);
    const items = array.slice(2, -2).replaceAll("\n", "\n  ");
    await writeWithRoom(out, `  ${items}${end === rows.length ? "\n" : ",\n"}`);
  }
  out.write("  ]\n}\n");
}
