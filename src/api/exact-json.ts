/**
 * JSON parsed with every number exact, for the client's responses and the server's request
 * bodies alike: int64 ids stay exact, and a fraction or an exponent keeps the form it was
 * written in, so a checker can refuse it rather than see it rounded.
 */
import { isLosslessNumber, parse } from "lossless-json";

/**
 * Whether a value the parsers above give is a JSON object: not an array, not null, and not a
 * LosslessNumber (which is an object too).
 */
export function isJsonObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !isLosslessNumber(value)
  );
}

const QUOTE = 0x22;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const BACKSLASH = 0x5c;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const POINT = 0x2e;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/**
 * Where the string opened by the quote at `open` closes: the first quote after it that an
 * even number of backslashes (none, most often) precede. -1 when none does: not JSON.
 */
function closingQuote(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}

/**
 * Could the text hold a number that JSON.parse would not keep exact, or whose form (a
 * fraction or exponent) it would hide? Outside strings, a run of 16 digits (above 2^53 is
 * possible) or a digit followed by ".", "e" or "E" says maybe; in JSON a letter e outside
 * strings follows a digit only in a number ("true" and "false" have theirs after a letter).
 * Strings are stepped over (closingQuote): a time ("09:00:00.123Z") or a UUID ("…4e5f…") in
 * one is not a number. One pass, nothing copied: a change feed page of 1,000 records (every
 * time in it holds ".") is looked through in 0.2 ms, where removing its strings with a
 * regular expression first took 0.6 ms and a copy of the text.
 */
function mayHoldInexactNumber(text: string): boolean {
  let digits = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = closingQuote(text, index);
      // A string never closed is not JSON, which the parser says.
      if (index === -1) return false;
      digits = 0;
    } else if (code >= DIGIT_0 && code <= DIGIT_9) {
      if (++digits >= 16) return true;
    } else {
      if (digits > 0 && (code === POINT || code === LOWER_E || code === UPPER_E)) return true;
      digits = 0;
    }
  }
  return false;
}

/**
 * Parses JSON keeping every number exact: as a LosslessNumber (lossless-json), or as a plain
 * number when the text holds only integers of at most 15 digits. Throws SyntaxError on text
 * that is not JSON.
 */
export function parseExactJson(text: string): unknown {
  // Every number is an integer of at most 15 digits: the native parser keeps it exact and
  // is many times faster than lossless-json on a large body (and than a reviver wrapping
  // each number).
  return mayHoldInexactNumber(text) ? parse(text) : JSON.parse(text);
}

/** JSON's number grammar in parts: sign, integer digits, fraction digits, exponent. */
const JSON_NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

/** Digits a whole number may have here at most: past every range checked (int64 has 19). */
const MAX_INTEGER_DIGITS = 40;

/**
 * The integer a JSON number's text stands for, exactly, when it stands for one: `4.0`, `1e2`
 * and `1.5e1` do (as JSON Schema's integer counts them); `2.5` and `2147483647.0000001` do not,
 * though Number() rounds the last to an integer. Undefined too for text that is not a JSON
 * number, and for a magnitude of more than 40 digits.
 */
export function exactInteger(text: string): bigint | undefined {
  const match = JSON_NUMBER.exec(text);
  if (!match) return undefined;
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  // The value is digits × 10^scale.
  let digits = whole + fraction;
  const scale = Number(exponent) - fraction.length;
  if (scale < 0) {
    // The digits past the point must all be zeros (all of them, when the point is further left).
    if (/[1-9]/.test(digits.slice(Math.max(0, digits.length + scale)))) return undefined;
    digits = digits.slice(0, Math.max(0, digits.length + scale));
  }
  const significant = digits.replace(/^0+/, "");
  if (significant === "") return 0n;
  if (significant.length + Math.max(0, scale) > MAX_INTEGER_DIGITS) return undefined;
  const value = BigInt(significant) * 10n ** BigInt(Math.max(0, scale));
  return sign === "-" ? -value : value;
}

/**
 * The first name an object of the text holds twice, if any (JSON.parse keeps the last of them
 * and lossless-json refuses the text, so a request saying both `"quantity": 5` and
 * `"quantity": 7` would mean what its parser chose). Names compare as the strings they decode
 * to (`"a"` and `"\u0061"` are one name). Text that is not JSON gets no answer that means
 * anything: parse it first.
 */
export function repeatedName(text: string): string | undefined {
  /** Each object open at this point, innermost last: its names, once it has one. */
  const open: (Set<string> | undefined)[] = [];
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === OPEN_BRACE) {
      open.push(undefined);
    } else if (code === CLOSE_BRACE) {
      open.pop();
    } else if (code === QUOTE) {
      const start = index;
      const close = closingQuote(text, start);
      if (close === -1) return undefined;
      index = close;
      // A name is the string a colon follows (after white space) inside an object.
      let next = close + 1;
      while (next < text.length && text.charCodeAt(next) <= 0x20) next++;
      if (open.length === 0 || text.charCodeAt(next) !== COLON) continue;
      const token = text.slice(start, close + 1);
      const name = token.includes("\\") ? (JSON.parse(token) as string) : token.slice(1, -1);
      const names = open.at(-1) ?? new Set<string>();
      if (names.has(name)) return name;
      names.add(name);
      open[open.length - 1] = names;
    }
  }
  return undefined;
}

/**
 * A request body's JSON (PATCH's, a batch's): as parseExactJson reads it, refusing a name
 * repeated in one object (a RepeatedNameError), and with every LosslessNumber whose text stands
 * for an integer JavaScript holds exactly made that number: `5.0` is 5, as JSON Schema counts it and
 * as JSON.parse gave before, while `2.5`, `2147483647.0000001` (which JSON.parse rounds to an
 * integer) and int64s past 2^53 stay LosslessNumbers, which no number check of ours takes for
 * a safe integer. Throws SyntaxError on text that is not JSON (whatever names it repeats), and
 * RangeError on JSON nested deeper than the parser's stack holds.
 */
export function parseRequestJson(text: string): unknown {
  // A leading byte order mark is looked past, as RFC 8259 lets a reader (and Fastify did).
  const json = text.startsWith("\uFEFF") ? text.slice(1) : text;
  let value: unknown;
  let failure: Error | undefined;
  try {
    value = mayHoldInexactNumber(json) ? plainIntegers(parse(json)) : JSON.parse(json);
  } catch (error) {
    // lossless-json refuses a repeated name as it refuses text that is not JSON: the native
    // parser throws for the latter, and the names below tell the former.
    JSON.parse(json);
    // Both parsers throw only errors: SyntaxError, or RangeError for deep nesting.
    failure = error as Error;
  }
  const repeated = repeatedName(json);
  if (repeated !== undefined) throw new RepeatedNameError(repeated);
  if (failure !== undefined) throw failure;
  return value;
}

/** A request body names something twice in one object. */
export class RepeatedNameError extends Error {
  constructor(repeated: string) {
    super(
      `the body names ${JSON.stringify(repeated.slice(0, 40))} twice in one object: say it once`,
    );
    this.name = "RepeatedNameError";
  }
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function plainIntegers(value: unknown): unknown {
  if (isLosslessNumber(value)) {
    const integer = exactInteger(value.value);
    return integer !== undefined && integer >= MIN_SAFE && integer <= MAX_SAFE
      ? Number(integer)
      : value;
  }
  if (Array.isArray(value)) return value.map(plainIntegers);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, plainIntegers(item)]),
    );
  }
  return value;
}
