/**
 * Counts from JSON: an array of `{"petId": N, "quantity": N}` objects (other fields ignored),
 * parsed losslessly so int64 ids stay exact. Both values must be JSON integers: a string
 * such as "5" is refused, as the server refuses it.
 */
import { isLosslessNumber, parse } from "lossless-json";
import { readPetId, readQuantity } from "../api/limits.js";
import type { CountProblem, CountRow, ParsedCounts } from "./counts.js";

function lineAt(text: string, position: number): number {
  let line = 1;
  for (let index = 0; index < position && index < text.length; index += 1) {
    if (text.charCodeAt(index) === 10) line += 1;
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
    const char = text[index];
    if (inString) {
      if (char === "\\") index += 1;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === "\n") line += 1;
    if (char === undefined || /\s/.test(char)) continue;
    if (depth === 1 && expectingEntry && char !== "]") {
      lines.push(line);
      expectingEntry = false;
    }
    if (char === '"') {
      inString = true;
    } else if (char === "[" || char === "{") {
      depth += 1;
      if (depth === 1) expectingEntry = true;
    } else if (char === "]" || char === "}") {
      depth -= 1;
    } else if (char === "," && depth === 1) {
      expectingEntry = true;
    }
  }
  return lines;
}

function describeValue(value: unknown): string {
  if (isLosslessNumber(value)) return value.value;
  if (typeof value === "string") return `${JSON.stringify(value)} (a string)`;
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "boolean") return String(value);
  return "an object";
}

type FieldReading<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * Reads one field: a JSON number under the whole-number rule (JSON itself has no leading
 * zeros or surrounding whitespace in a number), or a problem message.
 */
function readField<T>(
  name: string,
  value: unknown,
  read: (text: string) => FieldReading<T>,
): { value: T } | { problem: string } {
  if (value === undefined) return { problem: `missing ${name}` };
  // Any other JSON value reads as a text the rule refuses, so it gets the same reason.
  const reading = read(isLosslessNumber(value) ? value.value : "not a number");
  if (reading.ok) return { value: reading.value };
  return {
    problem: `invalid ${name} ${describeValue(value)}: ${reading.reason.replace("a whole number", "a JSON integer")}`,
  };
}

/** Parses and validates JSON counts; each row is located by array entry and line. */
export function parseJsonCounts(input: string): ParsedCounts {
  const text = input.replace(/^\uFEFF/, "");
  let value: unknown;
  try {
    value = parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /at position (\d+)/.exec(message)?.[1];
    const line = position === undefined ? 1 : lineAt(text, Number(position));
    const reason = message.replace(/ (?:encountered )?at position \d+$/, "");
    return { rows: [], problems: [{ location: { line }, message: `not valid JSON: ${reason}` }] };
  }
  if (!Array.isArray(value)) {
    return {
      rows: [],
      problems: [
        {
          location: { line: 1 },
          message: 'expected a JSON array of {"petId": ..., "quantity": ...} objects',
        },
      ],
    };
  }
  const lines = arrayEntryLines(text);
  const rows: CountRow[] = [];
  const problems: CountProblem[] = [];
  value.forEach((entry: unknown, index) => {
    const location = { line: lines[index] ?? 1, entry: index + 1 };
    if (
      typeof entry !== "object" ||
      entry === null ||
      Array.isArray(entry) ||
      isLosslessNumber(entry)
    ) {
      problems.push({
        location,
        message: `expected an object {"petId": ..., "quantity": ...}, found ${describeValue(entry)}`,
      });
      return;
    }
    const fields = entry as Readonly<Record<string, unknown>>;
    const petId = readField("petId", fields.petId, readPetId);
    const quantity = readField("quantity", fields.quantity, readQuantity);
    if ("problem" in petId) problems.push({ location, message: petId.problem });
    if ("problem" in quantity) problems.push({ location, message: quantity.problem });
    if ("value" in petId && "value" in quantity) {
      rows.push({ petId: petId.value, quantity: quantity.value, location });
    }
  });
  return { rows, problems };
}
