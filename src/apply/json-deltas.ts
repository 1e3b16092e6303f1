/**
 * Changes from JSON: an array of `{"petId": N, "delta": N, "ref": "..."}` objects (`ref`
 * optional, any other field refused), read by the one JSON reader (json-rows.ts).
 */
import { readPetId } from "../api/limits.js";
import type { CountProblem } from "./counts.js";
import {
  DELTAS_JSON_SHAPE,
  readDelta,
  refProblem,
  type DeltaRow,
  type ParsedDeltas,
} from "./deltas.js";
import { describeJsonValue, readJsonEntries, readJsonNumberField } from "./json-rows.js";

function readRef(value: unknown): { value: string | undefined } | { problem: string } {
  if (value === undefined) return { value: undefined };
  if (typeof value !== "string") {
    return { problem: `invalid ref ${describeJsonValue(value)}: expected a string` };
  }
  const problem = refProblem(value);
  return problem === undefined
    ? { value }
    : { problem: `invalid ref ${JSON.stringify(value)}: ${problem}` };
}

/** Parses and validates JSON changes; each row is located by array entry and line. */
export function parseJsonDeltas(input: string): ParsedDeltas {
  const rows: DeltaRow[] = [];
  const problems: CountProblem[] = [];
  const shapeProblems = readJsonEntries(input, DELTAS_JSON_SHAPE, (fields, location, row) => {
    const petId = readJsonNumberField("petId", fields.petId, readPetId);
    const delta = readJsonNumberField("delta", fields.delta, readDelta);
    const ref = readRef(fields.ref);
    for (const field of [petId, delta, ref]) {
      if ("problem" in field) problems.push({ location, message: field.problem });
    }
    if ("value" in petId && "value" in delta && "value" in ref) {
      rows.push({ petId: petId.value, delta: delta.value, ref: ref.value, location, row });
    }
  });
  return { rows, problems: [...shapeProblems, ...problems] };
}
