/** JSON output that keeps int64 values exact (bigint is written as a plain JSON number). */
import { isLosslessNumber, stringify } from "lossless-json";

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
