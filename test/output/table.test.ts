import { Chalk } from "chalk";
import { describe, expect, it } from "vitest";
import { renderTable, type TableSpec } from "../../src/output/table.js";

const style = new Chalk({ level: 0 });
const REASON =
  "delivery from the wholesaler, invoice 2026-11-27/4411, three boxes short: see the note";
const REF = "till-1/2026-11-27/receipt-000000000000000042";
const SPEC: TableSpec = {
  head: ["when", "change", "reason", "ref"],
  rows: [
    ["2026-11-27 10:00:00", "+6", REASON, REF],
    ["2026-11-27 09:00:00", "-2", "sold", ""],
  ],
  rightAligned: [1],
  wrappable: [2, 3],
};

const lengths = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => line.length);

/** The text of column `index` (1-based between the borders) over every line of the table. */
function columnText(table: string, index: number): string {
  return table
    .split("\n")
    .filter((line) => line.startsWith("│"))
    .map((line) => line.split("│")[index]?.trim() ?? "")
    .join(" ");
}

describe("renderTable", () => {
  it("keeps each cell on one line when the width is not known (not a terminal)", () => {
    const table = renderTable(SPEC, { style, width: undefined });
    expect(table).toContain(`│ ${REASON} │ ${REF} │`);
  });

  it("keeps a table that fits as it is", () => {
    const wide = renderTable(SPEC, { style, width: 400 });
    expect(wide).toBe(renderTable(SPEC, { style, width: undefined }));
  });

  it("narrows the free-text columns to the terminal, wrapping between words, losing nothing", () => {
    const table = renderTable(SPEC, { style, width: 80 });
    expect(Math.max(...lengths(table))).toBeLessThanOrEqual(80);
    expect(table).toContain("│ 2026-11-27 10:00:00 │");
    // Between words where it can; a word longer than the column is cut, never shortened.
    expect(columnText(table, 3).replace(/ +/g, " ")).toContain(
      "delivery from the wholesaler, invoice 2026-11-27/4411, three boxes short: see the note",
    );
    expect(columnText(table, 4).replaceAll(" ", "")).toBe(
      `reftill-1/2026-11-27/receipt-000000000000000042`,
    );
    expect(table).not.toContain("…");
  });

  it("narrows a column to 12 characters at least, and never a column not said to wrap", () => {
    // The reason and ref columns at their least: 12 characters and the padding.
    const least = 1 + 21 + 1 + 8 + 1 + 14 + 1 + 14 + 1;
    const table = renderTable(SPEC, { style, width: least });
    expect(table).toContain("│ 2026-11-27 10:00:00 │");
    expect(table.split("\n")[0]).toBe(
      `┌${"─".repeat(21)}┬${"─".repeat(8)}┬${"─".repeat(14)}┬${"─".repeat(14)}┐`,
    );
  });

  it("shows each row as a record when the table cannot fit even so, losing nothing", () => {
    const records = renderTable(SPEC, { style, width: 40 });
    expect(records.split("\n")).toEqual([
      `─[ 1 of 2 ]${"─".repeat(29)}`,
      "when    2026-11-27 10:00:00",
      "change  +6",
      "reason  delivery from the wholesaler,",
      "        invoice 2026-11-27/4411, three",
      "        boxes short: see the note",
      "ref     till-1/2026-11-27/receipt-",
      "        000000000000000042",
      `─[ 2 of 2 ]${"─".repeat(29)}`,
      "when    2026-11-27 09:00:00",
      "change  -2",
      "reason  sold",
      "ref",
      "",
    ]);
    expect(Math.max(...lengths(records))).toBeLessThanOrEqual(40);
    // Titles are bold when colour is on; the values are not touched.
    const bold = renderTable(SPEC, { style: new Chalk({ level: 1 }), width: 40 });
    expect(bold).toContain("\u001b[1mchange\u001b[22m  +6\n");
  });

  it("cuts characters two columns wide across lines too, never shortening them", () => {
    const reason = "入荷した箱が三つ足りない、伝票を確認すること";
    const spec: TableSpec = { head: ["when", "reason"], rows: [["today", reason]], wrappable: [1] };
    const table = renderTable(spec, { style, width: 30 });
    expect(table).not.toContain("…");
    expect(columnText(table, 2).replaceAll(" ", "")).toBe(`reason${reason}`);
  });

  it("shows a table without a wrappable column as it is when it fits, else as records", () => {
    const spec = { ...SPEC, wrappable: [] };
    expect(renderTable(spec, { style, width: 400 })).toBe(
      renderTable(spec, { style, width: undefined }),
    );
    expect(renderTable(spec, { style, width: 40 })).toBe(renderTable(SPEC, { style, width: 40 }));
  });

  it("shows a table of fields as a line each when it cannot fit, and a narrow callback in its place", () => {
    const spec: TableSpec = {
      head: ["field", "value"],
      rows: [
        ["id", "42"],
        ["tags", ""],
        ["photoUrls", "https://example.com/a.jpg\nhttps://example.com/b.jpg"],
      ],
      wrappable: [1],
      fields: true,
    };
    expect(renderTable(spec, { style, width: 20 }).split("\n")).toEqual([
      "id         42",
      "tags",
      "photoUrls  https://",
      "           example.",
      "           com/a.jpg",
      "           https://",
      "           example.",
      "           com/b.jpg",
      "",
    ]);
    // The narrow callback, when given, is what a table too narrow is shown as.
    expect(renderTable(SPEC, { style, width: 30 }, (width) => `as lines at ${width}\n`)).toBe(
      "as lines at 30\n",
    );
  });

  it("keeps the header of a table of no rows, however narrow the terminal", () => {
    const empty = renderTable({ ...SPEC, rows: [] }, { style, width: 10 });
    expect(empty).toContain("│ when │ change │ reason │ ref │");
  });

  it("leaves out a note column (no title) that no row has a note in", () => {
    const spec: TableSpec = {
      head: ["petId", "counted", ""],
      rows: [["1", "5", ""]],
      rightAligned: [0, 1],
    };
    expect(renderTable(spec, { style, width: undefined })).toBe(
      renderTable(
        { ...spec, head: ["petId", "counted"], rows: [["1", "5"]] },
        { style, width: undefined },
      ),
    );
    // As records, a row without a note has no line for it.
    const records = renderTable(
      {
        ...spec,
        rows: [
          ["1", "5", ""],
          ["2", "0", "not counted: 0"],
        ],
      },
      { style, width: 20 },
    );
    expect(records.split("\n")).toEqual([
      `─[ 1 of 2 ]${"─".repeat(9)}`,
      "petId    1",
      "counted  5",
      `─[ 2 of 2 ]${"─".repeat(9)}`,
      "petId    2",
      "counted  0",
      "         not",
      "         counted: 0",
      "",
    ]);
    const noted = renderTable(
      { ...spec, rows: [["1", "5", "posted before"]] },
      { style, width: undefined },
    );
    expect(noted).toContain("│ posted before │");
  });
});
