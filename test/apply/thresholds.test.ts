import { describe, expect, it } from "vitest";
import { parseCsvThresholds, readThresholds } from "../../src/apply/thresholds.js";
import { UsageError } from "../../src/errors.js";
import { readFileFrom } from "../support/files.js";
import { MAX_ID } from "../support/ids.js";

/** A source holding `files` (and `stdin`), as the CLI's input is. */
function source(files: Record<string, string>, stdin = "") {
  return {
    readFile: readFileFrom(files),
    readStdin: () => Promise.resolve(stdin),
  };
}

describe("parseCsvThresholds", () => {
  it("reads rows with their file lines, the header being line 1", () => {
    expect(parseCsvThresholds("petId,minimum\n1,5\n2,0\n")).toEqual({
      rows: [
        { petId: 1n, minimum: 5, location: { line: 2 } },
        { petId: 2n, minimum: 0, location: { line: 3 } },
      ],
      problems: [],
    });
  });

  it("tolerates a BOM, CRLF, any column order, extra columns, case and spaces in the header", () => {
    const text = '\uFEFFname, Minimum ,PETID\r\nRex,5,1\r\n"Tom, the cat",7,2\r\n';
    expect(parseCsvThresholds(text).rows).toEqual([
      { petId: 1n, minimum: 5, location: { line: 2 } },
      { petId: 2n, minimum: 7, location: { line: 3 } },
    ]);
  });

  it("skips blank lines and all-empty rows, and still counts them as lines", () => {
    const text = "petId,minimum\n\n1,5\n,\n\n2,6\n\n";
    expect(parseCsvThresholds(text)).toEqual({
      rows: [
        { petId: 1n, minimum: 5, location: { line: 3 } },
        { petId: 2n, minimum: 6, location: { line: 6 } },
      ],
      problems: [],
    });
  });

  it("keeps the largest int64 petId exact", () => {
    expect(parseCsvThresholds(`petId,minimum\n${MAX_ID},2147483647\n`).rows).toEqual([
      { petId: MAX_ID, minimum: 2147483647, location: { line: 2 } },
    ]);
  });

  it("accepts a header-only file as no rows", () => {
    expect(parseCsvThresholds("petId,minimum\n")).toEqual({ rows: [], problems: [] });
  });

  it.each([
    ["1,-1", 'invalid minimum "-1": expected a whole number from 0 to 2147483647'],
    ["1,2.5", 'invalid minimum "2.5": expected a whole number from 0 to 2147483647'],
    ["1,1e3", 'invalid minimum "1e3": expected a whole number from 0 to 2147483647'],
    ["1,07", 'invalid minimum "07": leading zeros are not allowed; write 7'],
    ["1,2147483648", 'invalid minimum "2147483648": expected a whole number from 0 to 2147483647'],
    ["1,three", 'invalid minimum "three": expected a whole number from 0 to 2147483647'],
    ["1,", "missing minimum"],
    ["1", "missing minimum"],
    [",5", "missing petId"],
    ["0,5", 'invalid petId "0": expected a whole number from 1 to 9223372036854775807'],
    ["042,5", 'invalid petId "042": leading zeros are not allowed; write 42'],
    [
      "9223372036854775808,5",
      'invalid petId "9223372036854775808": expected a whole number from 1 to 9223372036854775807',
    ],
    ["2,5", "duplicate petId 2 (first on line 2)"],
  ])("reports %j on its line", (row, message) => {
    const parsed = parseCsvThresholds(`petId,minimum\n2,1\n${row}\n`);
    expect(parsed.problems).toEqual([{ location: { line: 3 }, message }]);
  });

  it("reports a header without the minimum column on line 1", () => {
    expect(parseCsvThresholds("petId,quantity\n1,5\n").problems).toEqual([
      {
        location: { line: 1 },
        message:
          "the header has no minimum column (it has: petId,quantity); expected a header line petId,minimum",
      },
    ]);
  });

  it("reports a file without a header", () => {
    expect(parseCsvThresholds("\n\n").problems).toEqual([
      { location: { line: 1 }, message: "no header: expected a first line petId,minimum" },
    ]);
  });

  it("reports malformed CSV with the line csv-parse stopped on", () => {
    const parsed = parseCsvThresholds('petId,minimum\n1,5\n2,"6\n');
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]?.location.line).toBe(3);
    expect(parsed.problems[0]?.message).toMatch(/^not valid CSV: Quote Not Closed/);
  });
});

describe("readThresholds", () => {
  it("reads a file, or stdin for -", async () => {
    const files = source({ "minimums.csv": "petId,minimum\n1,3\n" }, "petId,minimum\n2,4\n");
    expect(await readThresholds("minimums.csv", files)).toEqual([
      { petId: 1n, minimum: 3, location: { line: 2 } },
    ]);
    expect(await readThresholds("-", files)).toEqual([
      { petId: 2n, minimum: 4, location: { line: 2 } },
    ]);
  });

  it("turns an unreadable file into a usage error naming it", async () => {
    const error: unknown = await readThresholds("missing.csv", source({})).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: "cannot read missing.csv: no such file or directory",
      hint: "give a readable CSV file with the header petId,minimum, or - to read stdin",
    });
  });

  it("names the file and line of a single problem, and says nothing was fetched", async () => {
    const files = source({ "m.csv": "petId,minimum\n1,3\n2,x\n" });
    const error: unknown = await readThresholds("m.csv", files).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: 'm.csv line 3: invalid minimum "x": expected a whole number from 0 to 2147483647',
      hint: "fix the file and run again; nothing was fetched",
    });
  });

  it("lists every problem in line order, stdin named as such", async () => {
    const files = source({}, "petId,minimum\n1,3\n1,4\n0,1\n");
    await expect(readThresholds("-", files)).rejects.toThrow(
      "stdin has 2 problems:\n" +
        "  line 3: duplicate petId 1 (first on line 2)\n" +
        '  line 4: invalid petId "0": expected a whole number from 1 to 9223372036854775807',
    );
  });
});
