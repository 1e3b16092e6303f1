import { describe, expect, it } from "vitest";
import { detectCountsFormat, parseCounts, readCountsText } from "../../src/apply/read-counts.js";
import { UsageError } from "../../src/errors.js";
import { readFileFrom } from "../support/files.js";

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("expected it to throw");
}

describe("detectCountsFormat", () => {
  it.each([
    ["counts.csv", "[", undefined, "csv"],
    ["COUNTS.JSON", "petId,quantity", undefined, "json"],
    ["counts.txt", "  \n[{}]", undefined, "json"],
    ["-", "\uFEFF{", undefined, "json"],
    ["-", "petId,quantity", undefined, "csv"],
    ["-", "", undefined, "csv"],
    ["counts.json", "[]", "csv", "csv"],
  ] as const)("%s holding %j with --format %s is %s", (path, text, flag, format) => {
    expect(detectCountsFormat(path, text, flag)).toBe(format);
  });
});

describe("readCountsText", () => {
  const source = {
    readFile: readFileFrom({ "counts.csv": "petId,quantity\n" }),
    readStdin: () => Promise.resolve("from stdin"),
  };

  it("reads a file, or stdin for -", async () => {
    expect(await readCountsText("counts.csv", source)).toBe("petId,quantity\n");
    expect(await readCountsText("-", source)).toBe("from stdin");
  });

  it("turns an unreadable file into a usage error naming it", async () => {
    const error: unknown = await readCountsText("missing.csv", source).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message: "cannot read missing.csv: no such file or directory",
      hint: "give a readable CSV or JSON file, or - to read stdin",
    });
  });
});

describe("parseCounts", () => {
  it("reads a filled count sheet: counted serves as quantity, a blank one is a pet not counted", () => {
    const sheet =
      "# count sheet as of seq 12\npetId,status,book,counted\n1,available,4,3\n2,sold,0,\n3,pending,7,7\n";
    expect(parseCounts(sheet, "csv", "sheet.csv", 12n)).toEqual([
      { petId: 1n, quantity: 3, location: { line: 3 } },
      { petId: 3n, quantity: 7, location: { line: 5 } },
    ]);
  });

  // Set as they are, a sheet's counts would undo the sales made since it was printed.
  it("refuses a count sheet set as plain quantities (no --as-of), naming the seq to post it as of", () => {
    const headed =
      "# count sheet as of seq 12: write each pet's count in the counted column, leave a pet not counted empty, then post it with\n# petstore inventory apply FILE --as-of 12\npetId,status,book,counted\n1,available,4,3\n2,sold,0,\n";
    const error = thrown(() => parseCounts(headed, "csv", "my sheet.csv"));
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      message:
        "my sheet.csv is a count sheet as of seq 12: set as they are, its counts would undo every sale made since it was printed; nothing was applied",
      hint: "post it as counts with petstore inventory apply 'my sheet.csv' --as-of 12: what was sold since is kept",
    });
    // Without the heading, its counted column says what it is; the seq is the user's to give.
    expect(thrown(() => parseCounts("petId,counted\n5,12\n", "csv", "-"))).toMatchObject({
      message:
        "stdin is a count sheet (its counts are in a counted column): set as they are, its counts would undo every sale made since it was printed; nothing was applied",
      hint: "post it as counts with petstore inventory apply - --as-of SEQ, SEQ being the seq the sheet was printed at (petstore inventory count --sheet heads it with that seq); or, if these are plain quantities to set, name the column quantity",
    });
  });

  it("refuses a count sheet posted as of another seq than its heading states", () => {
    const headed = "# count sheet as of seq 12: …\npetId,status,book,counted\n1,available,4,3\n";
    expect(thrown(() => parseCounts(headed, "csv", "sheet.csv", 13n))).toMatchObject({
      message:
        "sheet.csv is a count sheet as of seq 12 (its heading says so), not as of 13; nothing was applied",
      hint: "post it with petstore inventory apply sheet.csv --as-of 12: its books, and so its counts, are as of that seq",
    });
    // A file of quantities (`inventory list --csv`) may be posted as of any seq.
    expect(parseCounts("petId,quantity,status\n1,3,available\n", "csv", "l.csv", 13n)).toEqual([
      { petId: 1n, quantity: 3, location: { line: 2 } },
    ]);
  });

  it("returns the rows of a valid file", () => {
    expect(parseCounts("petId,quantity\n1,5\n", "csv", "counts.csv")).toEqual([
      { petId: 1n, quantity: 5, location: { line: 2 } },
    ]);
  });

  it("names the file and line of a single problem", () => {
    const error = thrown(() => parseCounts("petId,quantity\n1,x\n", "csv", "counts.csv"));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      'counts.csv line 2: invalid quantity "x": expected a whole number from 0 to 2147483647',
    );
    expect((error as UsageError).hint).toBe("fix the file and run again; nothing was applied");
  });

  it("refuses a duplicate petId, naming both lines", () => {
    expect(() => parseCounts("petId,quantity\n1,5\n2,5\n1,6\n", "csv", "c.csv")).toThrow(
      "c.csv line 4: duplicate petId 1 (first on line 2)",
    );
  });

  it("names JSON entries and their lines", () => {
    const text = '[\n{"petId": 1, "quantity": 5},\n{"petId": 1, "quantity": 6}\n]';
    expect(() => parseCounts(text, "json", "stdin")).toThrow(
      "stdin entry 2 (line 3): duplicate petId 1 (first on entry 1 (line 2))",
    );
  });

  it("refuses a JSON entry with an unknown field, setting quantities or counts as of a seq (--as-of)", () => {
    const text = '[{"petId": 1, "quantity": 6, "extra": 1}]';
    for (const asOf of [undefined, 7n]) {
      const error = thrown(() => parseCounts(text, "json", "x.json", asOf));
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe(
        'x.json entry 1 (line 1): unknown field "extra" (allowed: petId, quantity, status)',
      );
      expect((error as UsageError).hint).toBe("fix the file and run again; nothing was applied");
    }
  });

  it("lists every problem in line order, up to 20", () => {
    const rows = Array.from({ length: 25 }, (_, i) => `${i + 1},bad`).join("\n");
    const error = thrown(() => parseCounts(`petId,quantity\n1,1\n${rows}\n`, "csv", "c.csv"));
    const message = (error as UsageError).message;
    expect(message).toMatch(/^c\.csv has 25 problems:\n {2}line 3: invalid quantity "bad"/);
    expect(message).toContain("\n  line 22: ");
    expect(message).not.toContain("line 23:");
    expect(message).toMatch(/\n {2}\.\.\. and 5 more$/);
  });
});
