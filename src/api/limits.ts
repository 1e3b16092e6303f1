/** Bounds decided for values the spec leaves open, and the parsers that enforce them. */

/** Largest int64: the largest `petId`. */
export const MAX_PET_ID = 9223372036854775807n;

/** `quantity` is a JSON integer from 0 to 2^31 - 1. */
export const MIN_QUANTITY = 0;
export const MAX_QUANTITY = 2147483647;

/** `GET /inventory/{petId}/history?limit=N`: how many records, newest first. */
export const DEFAULT_HISTORY_LIMIT = 20;
export const MAX_HISTORY_LIMIT = 1000;

/** What reading a whole number gave: its value, or why the text is not one. */
type WholeNumberReading =
  | { ok: true; value: bigint }
  | { ok: false; problem: "empty" | "leading_zeros" | "not_whole" | "out_of_range" };

/**
 * The one rule for a whole number written as text: decimal digits only (no sign, spaces,
 * point or exponent), no leading zeros (`042` might be meant as octal or be a typo, so it is
 * refused rather than guessed), and from `min` to `max`. Exact for int64 and beyond.
 */
export function readWholeNumber(text: string, min: bigint, max: bigint): WholeNumberReading {
  if (text === "") return { ok: false, problem: "empty" };
  if (!/^[0-9]+$/.test(text)) return { ok: false, problem: "not_whole" };
  if (text.length > 1 && text.startsWith("0")) return { ok: false, problem: "leading_zeros" };
  const value = BigInt(text);
  return value < min || value > max ? { ok: false, problem: "out_of_range" } : { ok: true, value };
}

/**
 * The same rule for numbers people write (arguments, options, counts files), with surrounding
 * whitespace ignored on every one of those paths (a spreadsheet's CSV cell `" 42"`, a quoted
 * argument `" 42"`), and the reason for a refusal in words: "expected a whole number from 1 to
 * 9223372036854775807", or "leading zeros are not allowed; write 42".
 */
export function readWrittenWholeNumber(
  text: string,
  min: bigint,
  max: bigint,
): { ok: true; value: bigint } | { ok: false; empty: boolean; reason: string } {
  const trimmed = text.trim();
  const reading = readWholeNumber(trimmed, min, max);
  if (reading.ok) return reading;
  const reason =
    reading.problem === "leading_zeros"
      ? `leading zeros are not allowed; write ${trimmed.replace(/^0+(?=[0-9])/, "")}`
      : `expected a whole number from ${min} to ${max}`;
  return { ok: false, empty: reading.problem === "empty", reason };
}

/**
 * Parses a decimal `petId` exactly, as the server reads a path: a positive int64 under the
 * whole-number rule, with no whitespace around it. Returns undefined for anything else.
 */
export function parsePetId(text: string): bigint | undefined {
  const reading = readWholeNumber(text, 1n, MAX_PET_ID);
  return reading.ok ? reading.value : undefined;
}

/** A `petId` written by a person: the whole-number rule, whitespace around it ignored. */
export function readPetId(text: string): ReturnType<typeof readWrittenWholeNumber> {
  return readWrittenWholeNumber(text, 1n, MAX_PET_ID);
}

/** A `quantity` written by a person: the whole-number rule, whitespace around it ignored. */
export function readQuantity(
  text: string,
): { ok: true; value: number } | { ok: false; empty: boolean; reason: string } {
  const reading = readWrittenWholeNumber(text, BigInt(MIN_QUANTITY), BigInt(MAX_QUANTITY));
  return reading.ok ? { ok: true, value: Number(reading.value) } : reading;
}

/**
 * True when `quantity` is one the server accepts: a whole number from MIN_QUANTITY to
 * MAX_QUANTITY. (Not a type guard: false leaves a number, and a message may show it.)
 */
export function isValidQuantity(quantity: number): boolean {
  return Number.isInteger(quantity) && quantity >= MIN_QUANTITY && quantity <= MAX_QUANTITY;
}

/** `POST /inventory/batch`: at most this many changes in one request. */
export const MAX_BATCH_CHANGES = 10_000;

/** `POST /inventory/batch`: the largest body, in bytes (the other routes keep 16 KiB). */
export const BATCH_BODY_LIMIT = 2 * 1024 * 1024;

/** A batch change's `ref`: 1 to 128 visible ASCII characters (%x21-7E). */
export const MAX_REF_LENGTH = 128;
const REF = /^[\x21-\x7e]{1,128}$/;

/** Whether `ref` is a business reference the server keeps. */
export function isValidRef(ref: string): boolean {
  return REF.test(ref);
}

/**
 * `adjust --file --ref-prefix P`: a row without a ref gets `P:<row>`, so P is at most 100
 * visible ASCII characters, leaving room in MAX_REF_LENGTH for `:` and any row number.
 */
export const MAX_REF_PREFIX_LENGTH = 100;
const REF_PREFIX = /^[\x21-\x7e]{1,100}$/;

/** Whether `prefix` makes valid refs `prefix:<row>`. */
export function isValidRefPrefix(prefix: string): boolean {
  return REF_PREFIX.test(prefix);
}

/** `GET /inventory/changes?limit=N`: how many records a page holds. */
export const DEFAULT_FEED_LIMIT = 100;
export const MAX_FEED_LIMIT = 1000;

/** `GET /inventory/changes?wait=S`: the longest a long poll waits, in seconds. */
export const MAX_FEED_WAIT_SECONDS = 60;
