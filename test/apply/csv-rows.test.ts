import { describe, expect, it } from "vitest";
import { readCsvRecords } from "../../src/apply/csv-rows.js";

const COLUMNS = { required: ["petId"], optional: ["ref"], expectedHeader: "petId[,ref]" } as const;

/** Every data record as [first cell, line, row], and the problem that stopped the file. */
function read(text: string) {
  const records: [string | undefined, number, number][] = [];
  let columns: Readonly<Record<string, number>> | undefined;
  const problem = readCsvRecords(text, COLUMNS, (indexes) => {
    columns = indexes;
    return (cells, line, row) => records.push([cells[0], line, row]);
  });
  return { records, problem, columns };
}

describe("readCsvRecords", () => {
  it("numbers lines from the header (line 1) and rows from the first data row (row 1)", () => {
    expect(read("petId\na\nb\n").records).toEqual([
      ["a", 2, 1],
      ["b", 3, 2],
    ]);
  });

  it("skips blank, whitespace-only and all-empty lines: counted as lines, not as rows", () => {
    const text = "\n \npetId,ref\n\n  \t\na,x\n , \n,\nb,y\n\n";
    expect(read(text).records).toEqual([
      ["a", 6, 1],
      ["b", 9, 2],
    ]);
  });

  it("skips a heading of # lines before the header, numbering lines from the file's first", () => {
    const text = "# count sheet as of seq 9\n# petstore inventory apply FILE --as-of 9\npetId\na\n";
    expect(read(text)).toMatchObject({ records: [["a", 4, 1]], problem: undefined });
    expect(read("\uFEFF# heading\npetId\na\n").records).toEqual([["a", 3, 1]]);
    // Only before the header: a later # line is a record like any other.
    expect(read("petId\n#a\n").records).toEqual([["#a", 2, 1]]);
  });

  it("finds optional columns by name in any case, and gives -1 for one that is absent", () => {
    expect(read("REF,petid\nx,1\n").columns).toEqual({ petId: 1, ref: 0 });
    expect(read("petId\n1\n").columns).toEqual({ petId: 0, ref: -1 });
  });

  it("locates rows right in a file far longer than one part of text, CRLF and all", () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => `${i + 1},r${i + 1}`);
    // A blank line every 1,000 rows: the lines and the rows part ways.
    const lines = rows.flatMap((row, i) => (i % 1000 === 999 ? [row, ""] : [row]));
    const { records } = read(`petId,ref\r\n${lines.join("\r\n")}\r\n`);
    expect(records).toHaveLength(30_000);
    expect(records[0]).toEqual(["1", 2, 1]);
    expect(records[999]).toEqual(["1000", 1001, 1000]);
    expect(records[1000]).toEqual(["1001", 1003, 1001]);
    expect(records[29_999]).toEqual(["30000", 30_000 + 29 + 1, 30_000]);
  });

  it("names the line of a CSV error in a later part of a long file", () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `${i + 1},r`);
    const text = `petId,ref\n${rows.join("\n")}\n5,"open\n`;
    // A quote anywhere means the text is parsed whole; the error still has its line.
    const { problem } = read(text);
    expect(problem?.location.line).toBe(20_002);
    expect(problem?.message).toMatch(/^not valid CSV: Quote Not Closed/);
  });

  it("keeps a quoted field's line ends and locates the rows after it", () => {
    const { records } = read('petId,ref\n"a\nb",x\nc,y\n');
    expect(records).toEqual([
      ["a\nb", 2, 1],
      ["c", 4, 2],
    ]);
  });

  it("refuses a file without a header or without a required column", () => {
    expect(read("\n\n").problem).toEqual({
      location: { line: 1 },
      message: "no header: expected a first line petId[,ref]",
    });
    expect(read("\nid,ref\n1,x\n").problem).toEqual({
      location: { line: 2 },
      message:
        "the header has no petId column (it has: id,ref); expected a header line petId[,ref]",
    });
    expect(read("petId,ref,Ref\n").problem?.message).toBe("the header has two ref columns");
  });

  it.each([
    ["semicolon", "petId;ref\n1;x\n", 1],
    ["semicolon", '\uFEFF"petId";"ref"\n1;x\n', 1],
    ["semicolon", "\n\npetid ; REF\n1;x\n", 3],
    ["tab", "petId\tref\n1\tx\n", 1],
  ])("names the separator of a %s-separated file (%j) at its header", (name, text, line) => {
    expect(read(text)).toEqual({
      records: [],
      columns: undefined,
      problem: {
        location: { line },
        message: `the file looks ${name}-separated; petstore reads comma-separated CSV: export it with a comma between fields (a header line petId[,ref])`,
      },
    });
  });

  it("reads a comma-separated file whose cells hold semicolons as it always did", () => {
    expect(read("petId,note\n1;2,x\n").records).toEqual([["1;2", 2, 1]]);
    // Semicolons that would not make a header either: the missing column, as before.
    expect(read("id;pet\n").problem?.message).toBe(
      "the header has no petId column (it has: id;pet); expected a header line petId[,ref]",
    );
  });
});
