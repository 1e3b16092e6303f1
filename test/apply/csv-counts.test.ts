import { describe, expect, it } from "vitest";
import { parseCsvCounts } from "../../src/apply/csv-counts.js";
import { MAX_ID } from "../support/ids.js";

describe("parseCsvCounts", () => {
  it("reads rows with their file lines, the header being line 1", () => {
    expect(parseCsvCounts("petId,quantity\n1,5\n2,0\n")).toEqual({
      rows: [
        { petId: 1n, quantity: 5, location: { line: 2 } },
        { petId: 2n, quantity: 0, location: { line: 3 } },
      ],
      problems: [],
    });
  });

  it("tolerates a BOM, CRLF, any column order, extra columns, case and spaces in the header", () => {
    const text = '\uFEFFname, Quantity ,PETID\r\nRex,5,1\r\n"Tom, the cat",7,2\r\n';
    expect(parseCsvCounts(text).rows).toEqual([
      { petId: 1n, quantity: 5, location: { line: 2 } },
      { petId: 2n, quantity: 7, location: { line: 3 } },
    ]);
  });

  it("skips blank lines and all-empty rows, and still counts them as lines", () => {
    const text = "petId,quantity\n\n1,5\n,\n\n2,6\n\n";
    expect(parseCsvCounts(text)).toEqual({
      rows: [
        { petId: 1n, quantity: 5, location: { line: 3 } },
        { petId: 2n, quantity: 6, location: { line: 6 } },
      ],
      problems: [],
    });
  });

  it("locates a row on the line it starts on after a quoted field spanning lines (CRLF too)", () => {
    const text = 'petId,note,quantity\r\n1,"two\r\nlines",5\r\n2,x,-1\r\n';
    expect(parseCsvCounts(text)).toEqual({
      rows: [{ petId: 1n, quantity: 5, location: { line: 2 } }],
      problems: [
        {
          location: { line: 4 },
          message: 'invalid quantity "-1": expected a whole number from 0 to 2147483647',
        },
      ],
    });
  });

  it("keeps the largest int64 petId exact", () => {
    expect(parseCsvCounts(`petId,quantity\n${MAX_ID},2147483647\n`).rows).toEqual([
      { petId: MAX_ID, quantity: 2147483647, location: { line: 2 } },
    ]);
  });

  it("accepts a header-only file as no rows", () => {
    expect(parseCsvCounts("petId,quantity\n")).toEqual({ rows: [], problems: [] });
  });

  it.each([
    ["1,-1", 'invalid quantity "-1": expected a whole number from 0 to 2147483647'],
    ["1,2.5", 'invalid quantity "2.5": expected a whole number from 0 to 2147483647'],
    ["1,1e3", 'invalid quantity "1e3": expected a whole number from 0 to 2147483647'],
    ["1,07", 'invalid quantity "07": leading zeros are not allowed; write 7'],
    ["042,5", 'invalid petId "042": leading zeros are not allowed; write 42'],
    ['" 042",5', 'invalid petId " 042": leading zeros are not allowed; write 42'],
    ["1,4 2", 'invalid quantity "4 2": expected a whole number from 0 to 2147483647'],
    ["1,2147483648", 'invalid quantity "2147483648": expected a whole number from 0 to 2147483647'],
    ["1,five", 'invalid quantity "five": expected a whole number from 0 to 2147483647'],
    ["1,", "missing quantity"],
    ["1", "missing quantity"],
    [",5", "missing petId"],
    ["0,5", 'invalid petId "0": expected a whole number from 1 to 9223372036854775807'],
    ["-3,5", 'invalid petId "-3": expected a whole number from 1 to 9223372036854775807'],
    [
      "9223372036854775808,5",
      'invalid petId "9223372036854775808": expected a whole number from 1 to 9223372036854775807',
    ],
  ])("reports %j on its line", (row, message) => {
    const parsed = parseCsvCounts(`petId,quantity\n1,1\n${row}\n`);
    expect(parsed.problems).toEqual([{ location: { line: 3 }, message }]);
  });

  it("ignores whitespace around a number, bare or quoted, as the command line does", () => {
    expect(parseCsvCounts('petId,quantity\n 42 , 7\n" 43","8\t"\n').rows).toEqual([
      { petId: 42n, quantity: 7, location: { line: 2 } },
      { petId: 43n, quantity: 8, location: { line: 3 } },
    ]);
  });

  it("reports both cells of a row that has two problems", () => {
    expect(parseCsvCounts("petId,quantity\nx,y\n").problems.map((p) => p.message)).toEqual([
      'invalid petId "x": expected a whole number from 1 to 9223372036854775807',
      'invalid quantity "y": expected a whole number from 0 to 2147483647',
    ]);
  });

  it("reports a header without a required column on line 1", () => {
    expect(parseCsvCounts("id,quantity\n1,5\n").problems).toEqual([
      {
        location: { line: 1 },
        message:
          "the header has no petId column (it has: id,quantity); expected a header line petId,quantity",
      },
    ]);
  });

  it("refuses a delta column, naming the command that applies changes", () => {
    expect(parseCsvCounts("petId,quantity,delta\n1,5,-1\n")).toEqual({
      rows: [],
      problems: [
        {
          location: { line: 1 },
          message:
            "the header has a delta column: a file of counts holds quantities (petId,quantity) and a delta is a change: apply changes with `petstore inventory adjust --file`, or take the column out of this file",
        },
      ],
    });
  });

  it("refuses a quantity and a counted column together: either could be the count", () => {
    expect(parseCsvCounts("petId,quantity,counted\n1,5,4\n").problems).toEqual([
      {
        location: { line: 1 },
        message:
          "the header has both quantity and counted columns, which both name the quantity: keep one",
      },
    ]);
  });

  it("reports a file without a header", () => {
    expect(parseCsvCounts("").problems).toEqual([
      { location: { line: 1 }, message: "no header: expected a first line petId,quantity" },
    ]);
  });

  it("reports malformed CSV with the line csv-parse stopped on", () => {
    const parsed = parseCsvCounts('petId,quantity\n1,5\n2,"6\n');
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]?.location.line).toBe(3);
    expect(parsed.problems[0]?.message).toMatch(/^not valid CSV: Quote Not Closed/);
  });
});
