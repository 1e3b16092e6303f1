/**
 * Counts from JSON: an array of `{"petId": N, "quantity": N}` objects (other fields ignored),
 * parsed losslessly so int64 ids stay exact. Both values must be JSON integers: a string
 * such as "5" is refused, as the server refuses it.
 */
import { isLosslessNumber, parse } from "lossless-json";
import { isValidQuantity, parsePetId } from "../api/limits.js";
import {
  PET_ID_EXPECTED,
  QUANTITY_EXPECTED,
  type CountProblem,
  type CountRow,
  type ParsedCounts,
} from "./counts.js";

const PLAIN_INTEGER = /^(0|-?[1-9][0-9]*)$/;

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

function fieldProblem(name: string, value: unknown, expected: string): string {
  return value === undefined
    ? `missing ${name}`
    : `invalid ${name} ${describeValue(value)}: ${expected.replace("a whole number", "a JSON integer")}`;
}

function integerText(value: unknown): string | undefined {
  return isLosslessNumber(value) && PLAIN_INTEGER.test(value.value) ? value.value : undefined;
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
    const petIdText = integerText(fields.petId);
    const petId = petIdText === undefined ? undefined : parsePetId(petIdText);
    const quantityText = integerText(fields.quantity);
    const quantity = quantityText === undefined ? Number.NaN : Number(quantityText);
    if (petId === undefined) {
      problems.push({ location, message: fieldProblem("petId", fields.petId, PET_ID_EXPECTED) });
    }
    if (!isValidQuantity(quantity)) {
      problems.push({
        location,
        message: fieldProblem("quantity", fields.quantity, QUANTITY_EXPECTED),
      });
    }
    if (petId !== undefined && isValidQuantity(quantity)) rows.push({ petId, quantity, location });
  });
  return { rows, problems };
}
