import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseCsvDeltas } from "../../src/apply/csv-deltas.js";
import { readDelta } from "../../src/apply/deltas.js";
import { parseJsonDeltas } from "../../src/apply/json-deltas.js";
import { defaultRef, fileDigest, parseDeltas } from "../../src/apply/read-deltas.js";
import { UsageError } from "../../src/errors.js";
import { MAX_ID } from "../support/ids.js";

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("expected it to throw");
}

describe("readDelta", () => {
  it.each([
    ["+5", 5],
    ["-1", -1],
    ["7", 7],
    [" -3 ", -3],
    ["2147483647", 2147483647],
    ["-2147483647", -2147483647],
  ])("reads %j as %i", (text, value) => {
    expect(readDelta(text)).toEqual({ ok: true, value });
  });

  it.each([
    ["0", "a delta of 0 changes nothing"],
    ["-0", "a delta of 0 changes nothing"],
    ["+05", "leading zeros are not allowed; write +5"],
    ["-007", "leading zeros are not allowed; write -7"],
    ["2147483648", "expected a non-zero whole number from -2147483647 to 2147483647"],
    ["-2147483648", "expected a non-zero whole number from -2147483647 to 2147483647"],
    ["1.5", "expected a non-zero whole number from -2147483647 to 2147483647"],
    ["+-1", "expected a non-zero whole number from -2147483647 to 2147483647"],
    ["- 1", "expected a non-zero whole number from -2147483647 to 2147483647"],
    ["one", "expected a non-zero whole number from -2147483647 to 2147483647"],
  ])("refuses %j: %s", (text, reason) => {
    expect(readDelta(text)).toEqual({ ok: false, empty: false, reason });
  });

  it("calls an empty cell empty", () => {
    expect(readDelta(" ")).toMatchObject({ ok: false, empty: true });
  });
});

describe("parseCsvDeltas", () => {
  it("reads petId, delta and ref in any order and case, with row numbers and lines", () => {
    const text = `\uFEFFRef,DELTA,petid,note\r\nsale-1,-1,42,x\r\n\r\n,+3,${MAX_ID},\r\n`;
    expect(parseCsvDeltas(text)).toEqual({
      rows: [
        { petId: 42n, delta: -1, ref: "sale-1", location: { line: 2 }, row: 1 },
        { petId: MAX_ID, delta: 3, ref: undefined, location: { line: 4 }, row: 2 },
      ],
      problems: [],
    });
  });

  it("needs no ref column", () => {
    expect(parseCsvDeltas("petId,delta\n1,2\n").rows).toEqual([
      { petId: 1n, delta: 2, ref: undefined, location: { line: 2 }, row: 1 },
    ]);
  });

  it.each([
    ["1,0", 'invalid delta "0": a delta of 0 changes nothing'],
    ["1,+1.5", 'invalid delta "+1.5": expected a non-zero whole number'],
    ["1,", "missing delta"],
    [",1", "missing petId"],
    ["0,1", 'invalid petId "0": expected a whole number from 1 to 9223372036854775807'],
    ["1,1,has space", 'invalid ref "has space": expected 1 to 128 visible ASCII characters'],
    [`1,1,${"r".repeat(129)}`, "expected 1 to 128 visible ASCII characters (no spaces)"],
    ["1,1,vérifié", 'invalid ref "vérifié"'],
  ])("refuses %j on its line", (row, message) => {
    const parsed = parseCsvDeltas(`petId,delta,ref\n1,1\n${row}\n`);
    expect(parsed.rows).toHaveLength(1);
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]?.location).toEqual({ line: 3 });
    expect(parsed.problems[0]?.message).toContain(message);
  });

  it("says what the header lacks", () => {
    expect(parseCsvDeltas("petId,quantity\n1,5\n").problems).toEqual([
      {
        location: { line: 1 },
        message:
          "the header has no delta column (it has: petId,quantity); expected a header line petId,delta,ref",
      },
    ]);
  });
});

describe("parseJsonDeltas", () => {
  it("reads entries with their number, line and ref, ids exact", () => {
    const text = `[\n  {"petId": ${MAX_ID}, "delta": -2, "ref": "sale-9"},\n  {"delta": 4, "petId": 7}\n]`;
    expect(parseJsonDeltas(text)).toEqual({
      rows: [
        { petId: MAX_ID, delta: -2, ref: "sale-9", location: { line: 2, entry: 1 }, row: 1 },
        { petId: 7n, delta: 4, ref: undefined, location: { line: 3, entry: 2 }, row: 2 },
      ],
      problems: [],
    });
  });

  it.each([
    [
      '{"petId": 1, "delta": "5"}',
      'invalid delta "5" (a string): expected a non-zero JSON integer',
    ],
    ['{"petId": 1, "delta": 0}', "invalid delta 0: a delta of 0 changes nothing"],
    ['{"petId": 1, "delta": 1.5}', "invalid delta 1.5: expected a non-zero JSON integer"],
    ['{"petId": 1}', "missing delta"],
    ['{"petId": 1, "delta": 1, "ref": 5}', "invalid ref 5: expected a string"],
    ['{"petId": 1, "delta": 1, "ref": null}', "invalid ref null: expected a string"],
    ['{"petId": 1, "delta": 1, "ref": ""}', 'invalid ref "": expected 1 to 128 visible ASCII'],
    ["[1, 2]", 'expected an object {"petId": ..., "delta": ..., "ref": ...}, found an array'],
  ])("refuses %s as entry 2 on line 3", (entry, message) => {
    const parsed = parseJsonDeltas(`[\n  {"petId": 9, "delta": 1},\n  ${entry}\n]`);
    expect(parsed.rows).toHaveLength(1);
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]?.location).toEqual({ line: 3, entry: 2 });
    expect(parsed.problems[0]?.message).toContain(message);
  });
});

describe("parseDeltas", () => {
  it("gives a row without a ref <16 hex digits of the file's SHA-256>:<row number>", () => {
    const text = "petId,delta,ref\n1,-1\n\n2,-1,till-7\n3,+2,\n";
    const digest = createHash("sha256").update(Buffer.from(text)).digest("hex").slice(0, 16);
    expect(fileDigest(text)).toBe(digest);
    expect(parseDeltas(text, "csv", "sales.csv").map((row) => row.ref)).toEqual([
      `${digest}:1`,
      "till-7",
      `${digest}:3`,
    ]);
    expect(defaultRef(digest, 12)).toBe(`${digest}:12`);
  });

  it("hashes the bytes of the text as UTF-8, BOM and CRLF included: another file, other refs", () => {
    const text = "\uFEFFpetId,delta\r\n1,-1\r\n";
    const bytes = Buffer.from(text, "utf8");
    expect(fileDigest(text)).toBe(createHash("sha256").update(bytes).digest("hex").slice(0, 16));
    expect(fileDigest(text)).not.toBe(fileDigest("petId,delta\n1,-1\n"));
  });

  it("numbers JSON rows by their entry", () => {
    const text = '[{"petId": 1, "delta": 1}, {"petId": 1, "delta": 1}]';
    const digest = fileDigest(text);
    expect(parseDeltas(text, "json", "d.json").map((row) => row.ref)).toEqual([
      `${digest}:1`,
      `${digest}:2`,
    ]);
  });

  it("refuses the whole file, naming every bad line (exit 2), when any row is bad", () => {
    const error = thrown(() => parseDeltas("petId,delta\n1,0\n2,x\n3,1\n", "csv", "sales.csv"));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      "sales.csv has 2 problems:\n" +
        '  line 2: invalid delta "0": a delta of 0 changes nothing\n' +
        '  line 3: invalid delta "x": expected a non-zero whole number from -2147483647 to 2147483647',
    );
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).hint).toBe("fix the file and run again; nothing was applied");
  });
});
