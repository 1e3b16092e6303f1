/**
 * Changes from CSV: a header naming `petId` and `delta`, and optionally `ref` (any order, any
 * case, other columns ignored but a count's), read by the one CSV reader (csv-rows.ts).
 */
import { readPetId } from "../api/limits.js";
import type { CountProblem } from "./counts.js";
import { readCsvCell, readCsvRecords } from "./csv-rows.js";
import {
  DELTAS_CSV_HEADER,
  readDelta,
  refProblem,
  type DeltaRow,
  type ParsedDeltas,
} from "./deltas.js";

const COUNT_IN_CHANGES =
  "a file of changes holds deltas (petId,delta,ref) and a quantity is a count: post counts with `petstore inventory apply`, or take the column out of this file";

const DELTA_COLUMNS = {
  required: ["petId", "delta"],
  optional: ["ref"],
  expectedHeader: DELTAS_CSV_HEADER,
  refused: {
    quantity: COUNT_IN_CHANGES,
    counted: COUNT_IN_CHANGES,
  },
} as const;

/** Parses and validates CSV changes; an empty `ref` cell means none. */
export function parseCsvDeltas(text: string): ParsedDeltas {
  const rows: DeltaRow[] = [];
  const problems: CountProblem[] = [];
  const stop = readCsvRecords(text, DELTA_COLUMNS, (columns) => (cells, line, row) => {
    const location = { line };
    const petId = readCsvCell("petId", cells[columns.petId], readPetId);
    const delta = readCsvCell("delta", cells[columns.delta], readDelta);
    const refCell = columns.ref === -1 ? undefined : cells[columns.ref];
    const ref = refCell === "" ? undefined : refCell;
    const badRef = ref === undefined ? undefined : refProblem(ref);
    if ("problem" in petId) problems.push({ location, message: petId.problem });
    if ("problem" in delta) problems.push({ location, message: delta.problem });
    if (badRef !== undefined) {
      problems.push({ location, message: `invalid ref ${JSON.stringify(ref)}: ${badRef}` });
    }
    if ("value" in petId && "value" in delta && badRef === undefined) {
      rows.push({ petId: petId.value, delta: delta.value, ref, location, row });
    }
  });
  return stop === undefined ? { rows, problems } : { rows: [], problems: [stop] };
}
