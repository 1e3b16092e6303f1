/**
 * The lines of a counting session (`petstore inventory count`), as a barcode scanner or a
 * person types them: `42` one more of pet 42, `42 x5` five more, `42 =5` pet 42's count is 5,
 * `undo`, `?` (the summary so far), `done`. Whitespace and case around them are ignored;
 * anything else is refused with what was wrong, and counts nothing.
 */
import { MAX_QUANTITY, readPetId, readWrittenWholeNumber } from "../api/limits.js";

export type CountLine =
  | { kind: "add"; petId: bigint; units: number }
  | { kind: "set"; petId: bigint; count: number }
  | { kind: "undo" }
  | { kind: "summary" }
  | { kind: "done" }
  /** A blank line: nothing to do, nothing refused (a scanner's stray Enter). */
  | { kind: "blank" }
  | { kind: "refused"; reason: string };

const SHAPE = /^(\S+?)(?:\s*([x=])\s*(\S*))?$/;

const WHAT_A_LINE_IS =
  "a line is a petId (one more), ID xN (N more), ID =N (exactly N), undo, ? or done";

/** Reads one line of a session. */
export function readCountLine(text: string): CountLine {
  const line = text.trim().toLowerCase();
  if (line === "") return { kind: "blank" };
  if (line === "undo") return { kind: "undo" };
  if (line === "?") return { kind: "summary" };
  if (line === "done") return { kind: "done" };
  const notALine: CountLine = {
    kind: "refused",
    reason: `"${text.trim()}" is not a line of a count: ${WHAT_A_LINE_IS}`,
  };
  const match = SHAPE.exec(line);
  if (match === null) return notALine;
  const [, idText = "", op, amountText = ""] = match;
  const petId = readPetId(idText);
  if (!petId.ok) {
    return /^[0-9]+$/.test(idText)
      ? { kind: "refused", reason: `petId ${idText}: ${petId.reason}` }
      : notALine;
  }
  if (op === undefined) return { kind: "add", petId: petId.value, units: 1 };
  const least = op === "x" ? 1n : 0n;
  const amount = readWrittenWholeNumber(amountText, least, BigInt(MAX_QUANTITY));
  if (!amount.ok) {
    const what = op === "x" ? "xN adds N" : "=N sets the count to N";
    // The reason already names the range, unless it is about how the number is written.
    const range = `a whole number from ${least} to ${MAX_QUANTITY}`;
    const why = amount.reason.endsWith(range) ? "" : `: ${amount.reason}`;
    return {
      kind: "refused",
      reason: `"${text.trim()}": ${what}, ${range}${why}`,
    };
  }
  const value = Number(amount.value);
  return op === "x"
    ? { kind: "add", petId: petId.value, units: value }
    : { kind: "set", petId: petId.value, count: value };
}
