/**
 * Counts from JSON: an array of `{"petId": N, "quantity": N}` objects (other fields ignored),
 * read by the one JSON reader (json-rows.ts). Both values must be JSON integers: a string
 * such as "5" is refused, as the server refuses it.
 */
import { readPetId, readQuantity } from "../api/limits.js";
import type { CountProblem, CountRow, ParsedCounts } from "./counts.js";
import { readJsonEntries, readJsonNumberField } from "./json-rows.js";

export { arrayEntryLines } from "./json-rows.js";

/** Parses and validates JSON counts; each row is located by array entry and line. */
export function parseJsonCounts(input: string): ParsedCounts {
  const rows: CountRow[] = [];
  const problems: CountProblem[] = [];
  const stop = readJsonEntries(input, '{"petId": ..., "quantity": ...}', (fields, location) => {
    const petId = readJsonNumberField("petId", fields.petId, readPetId);
    const quantity = readJsonNumberField("quantity", fields.quantity, readQuantity);
    if ("problem" in petId) problems.push({ location, message: petId.problem });
    if ("problem" in quantity) problems.push({ location, message: quantity.problem });
    if ("value" in petId && "value" in quantity) {
      rows.push({ petId: petId.value, quantity: quantity.value, location });
    }
  });
  return { rows, problems: [...stop, ...problems] };
}
