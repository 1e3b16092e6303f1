/**
 * Counts from CSV: a header naming `petId` and `quantity` (any order, any case, other columns
 * ignored but a change's `delta`; a count sheet's `counted` column serves as `quantity`), one
 * row per pet, read by the one CSV reader (csv-rows.ts). A count sheet is said to be one
 * (`sheet`): its heading, or its `counted` column.
 */
import { readPetId, readQuantity } from "../api/limits.js";
import type { CountProblem, CountRow, ParsedCounts } from "./counts.js";
import { sheetHeadingSeq } from "./count-sheet.js";
import { readCsvCell, readCsvRecords } from "./csv-rows.js";

const COUNT_COLUMNS = {
  required: ["petId", "quantity"],
  expectedHeader: "petId,quantity",
  aliases: { quantity: ["counted"] },
  refused: {
    delta:
      "a file of counts holds quantities (petId,quantity) and a delta is a change: apply changes with `petstore inventory adjust --file`, or take the column out of this file",
  },
} as const;

/**
 * Parses and validates CSV counts; line numbers count the header as line 1. With
 * `blankIsNotCounted` (counts posted as of a seq: a filled count sheet), a row whose quantity
 * is blank is a pet not counted, left out; otherwise it is a problem.
 */
export function parseCsvCounts(text: string, blankIsNotCounted = false): ParsedCounts {
  const rows: CountRow[] = [];
  const problems: CountProblem[] = [];
  const headingSeq = sheetHeadingSeq(text);
  // Set once the header is read (a holder: TypeScript does not follow the callback's write).
  const header = { counted: false };
  const stop = readCsvRecords(text, COUNT_COLUMNS, (columns, names) => {
    header.counted = names[columns.quantity]?.toLowerCase() === "counted";
    return (cells, line) => {
      // csv-parse already trims cells; the whole-number rule ignores surrounding whitespace too.
      if (blankIsNotCounted && (cells[columns.quantity] ?? "") === "") return;
      const petId = readCsvCell("petId", cells[columns.petId], readPetId);
      const quantity = readCsvCell("quantity", cells[columns.quantity], readQuantity);
      if ("problem" in petId) problems.push({ location: { line }, message: petId.problem });
      if ("problem" in quantity) problems.push({ location: { line }, message: quantity.problem });
      if ("value" in petId && "value" in quantity) {
        rows.push({ petId: petId.value, quantity: quantity.value, location: { line } });
      }
    };
  });
  if (stop !== undefined) return { rows: [], problems: [stop] };
  const sheet = headingSeq !== undefined || header.counted ? { headingSeq } : undefined;
  return { rows, problems, sheet };
}
