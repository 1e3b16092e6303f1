/** JSON output that keeps int64 values exact (bigint is written as a plain JSON number). */
import { stringify } from "lossless-json";

/** Serializes `value` as indented JSON plus a newline. */
export function toJson(value: unknown): string {
  return `${stringify(value, null, 2) ?? "null"}\n`;
}
