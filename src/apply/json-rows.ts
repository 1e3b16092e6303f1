/**
 * The one JSON reader of the files people hand to the CLI (counts for `apply`, changes for
 * `adjust --file`): an array of objects, parsed losslessly so int64 ids stay exact (and a
 * duplicate key is refused rather than one of its values picked, and a field the file does not
 * have rather than ignored), each entry located by its number in the array and the line it
 * starts on.
 */
import { isLosslessNumber, parse } from "lossless-json";
import { isJsonObject } from "../api/exact-json.js";
import type { CountProblem, RowLocation } from "./counts.js";

const NEWLINE = 10;
const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;

function isJsonWhitespace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}

function lineAt(text: string, position: number): number {
  let line = 1;
  for (let index = 0; index < position && index < text.length; index += 1) {
    if (text.charCodeAt(index) === NEWLINE) line += 1;
  }
  return line;
}

/** The line each element of the top-level array starts on; `text` must be valid JSON. */
export function arrayEntryLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expectingEntry = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === NEWLINE) line += 1;
    if (isJsonWhitespace(code)) continue;
    // "]" (93) ends an empty array, not an entry.
    if (depth === 1 && expectingEntry && code !== 93) {
      lines.push(line);
      expectingEntry = false;
    }
    if (code === QUOTE) {
      inString = true;
    } else if (code === 91 || code === 123) {
      depth += 1;
      if (depth === 1) expectingEntry = true;
    } else if (code === 93 || code === 125) {
      depth -= 1;
    } else if (code === COMMA && depth === 1) {
      expectingEntry = true;
    }
  }
  return lines;
}

/** A JSON value as a message shows it: `2.5`, `"5" (a string)`, `null`, `an array`. */
export function describeJsonValue(value: unknown): string {
  if (isLosslessNumber(value)) return value.value;
  if (typeof value === "string") return `${JSON.stringify(value)} (a string)`;
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "boolean") return String(value);
  return "an object";
}

/** What a field's rule says of its text: its value, or why it is not one. */
export type FieldReading<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Reads one numeric field: a JSON number under the whole-number rule (JSON itself has no
 * leading zeros or surrounding whitespace in a number), or a problem message.
 */
export function readJsonNumberField<T>(
  name: string,
  value: unknown,
  read: (text: string) => FieldReading<T>,
): { value: T } | { problem: string } {
  if (value === undefined) return { problem: `missing ${name}` };
  // Any other JSON value reads as a text the rule refuses, so it gets the same reason.
  const reading = read(isLosslessNumber(value) ? value.value : "not a number");
  if (reading.ok) return { value: reading.value };
  return {
    problem: `invalid ${name} ${describeJsonValue(value)}: ${reading.reason.replace("whole number", "JSON integer")}`,
  };
}

/** The objects a file's array holds: how messages show one, and the fields one may have. */
export interface JsonEntryShape {
  /** As messages show it: `{"petId": ..., "quantity": ...}`. */
  text: string;
  /** Every field an entry may have: any other is refused, so that a typo is never ignored. */
  fields: readonly string[];
}

/**
 * The problem of a field no entry has: `unknown field "Ref" (allowed: petId, delta, ref; did
 * you mean "ref"?)`, the near miss named when only its case differs.
 */
function unknownFieldProblem(name: string, allowed: readonly string[]): string {
  const near = allowed.find((field) => field.toLowerCase() === name.toLowerCase());
  const hint = near === undefined ? "" : `; did you mean ${JSON.stringify(near)}?`;
  return `unknown field ${JSON.stringify(name)} (allowed: ${allowed.join(", ")}${hint})`;
}

/** One object of the array: its fields, where it is, and its 1-based number. */
export type JsonEntryVisitor = (
  fields: Readonly<Record<string, unknown>>,
  location: RowLocation,
  row: number,
) => void;

/**
 * Parses a JSON array of objects and calls `visit` for each object entry; every other entry,
 * every field of an entry that `shape` does not have (one problem each, the entry still
 * visited so that all its problems are listed), and a document that is not JSON or not an
 * array, is a problem.
 */
export function readJsonEntries(
  input: string,
  shape: JsonEntryShape,
  visit: JsonEntryVisitor,
): CountProblem[] {
  const text = input.replace(/^\uFEFF/, "");
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /at position (\d+)/.exec(message)?.[1];
    const line = position === undefined ? 1 : lineAt(text, Number(position));
    const reason = message.replace(/ (?:encountered )?at position \d+$/, "");
    return [{ location: { line }, message: `not valid JSON: ${reason}` }];
  }
  if (!Array.isArray(value)) {
    return [{ location: { line: 1 }, message: `expected a JSON array of ${shape.text} objects` }];
  }
  const lines = arrayEntryLines(text);
  const problems: CountProblem[] = [];
  value.forEach((entry: unknown, index) => {
    const location = { line: lines[index] ?? 1, entry: index + 1 };
    if (!isJsonObject(entry)) {
      problems.push({
        location,
        message: `expected an object ${shape.text}, found ${describeJsonValue(entry)}`,
      });
      return;
    }
    for (const name of Object.keys(entry)) {
      if (!shape.fields.includes(name)) {
        problems.push({ location, message: unknownFieldProblem(name, shape.fields) });
      }
    }
    visit(entry, location, index + 1);
  });
  return problems;
}
