/**
 * Counts from JSON: an array of `{"petId": N, "quantity": N}` objects, read by the one JSON
 * reader (json-rows.ts). Both values must be JSON integers: a string such as "5" is refused,
 * as the server refuses it. Any other field is refused too, but `status`.
 */
import { readPetId, readQuantity } from "../api/limits.js";
import type { CountProblem, CountRow, ParsedCounts } from "./counts.js";
import { readJsonEntries, readJsonNumberField, type JsonEntryShape } from "./json-rows.js";

export { arrayEntryLines } from "./json-rows.js";

/**
 * An entry of a counts file. `status` is allowed, and not applied: `inventory list --json`
 * prints it beside petId and quantity, and such a listing is a counts file (docs/cron.md).
 */
const COUNTS_JSON_SHAPE: JsonEntryShape = {
  text: '{"petId": ..., "quantity": ...}',
  fields: ["petId", "quantity", "status"],
};

/** Parses and validates JSON counts; each row is located by array entry and line. */
export function parseJsonCounts(input: string): ParsedCounts {
  const rows: CountRow[] = [];
  const problems: CountProblem[] = [];
  const stop = readJsonEntries(input, COUNTS_JSON_SHAPE, (fields, location) => {
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
