import { describe, expect, it } from "vitest";
import { parseCsvDeltas } from "../../src/apply/csv-deltas.js";
import { readDelta } from "../../src/apply/deltas.js";
import { parseJsonDeltas } from "../../src/apply/json-deltas.js";
import { MISSING_REF_HINT, parseDeltas, prefixedRef } from "../../src/apply/read-deltas.js";
import { isValidRefPrefix } from "../../src/api/limits.js";
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
    expect(parseCsvDeltas("petId,amount\n1,5\n").problems).toEqual([
      {
        location: { line: 1 },
        message:
          "the header has no delta column (it has: petId,amount); expected a header line petId,delta,ref",
      },
    ]);
  });

  // Other columns are ignored (a till's export has its own), but not a count's: the deltas
  // would be added and the counts dropped without a word.
  it.each([
    ["a quantity beside the delta", "petId,delta,quantity\n1,-1,5\n", "quantity"],
    ["a file of counts", "petId,Quantity\n1,5\n", "Quantity"],
    ["a count sheet's column", "petId,book,counted,delta\n1,4,5,1\n", "counted"],
  ])("refuses %s, naming the command that posts counts", (_, text, column) => {
    expect(parseCsvDeltas(text)).toEqual({
      rows: [],
      problems: [
        {
          location: { line: 1 },
          message: `the header has a ${column} column: a file of changes holds deltas (petId,delta,ref) and a quantity is a count: post counts with \`petstore inventory apply\`, or take the column out of this file`,
        },
      ],
    });
  });

  it("still reads a till's own columns beside the changes", () => {
    expect(parseCsvDeltas("sku,petId,name,delta,ref\nA-1,3,Rex,-1,t1\n").rows).toEqual([
      { petId: 3n, delta: -1, ref: "t1", location: { line: 2 }, row: 1 },
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

describe("parseJsonDeltas: fields", () => {
  it("refuses an unknown field, naming the entry, the field and the fields allowed", () => {
    const parsed = parseJsonDeltas('[{"petId": 1, "delta": -1, "quantity": 5, "ref": "zz1"}]');
    expect(parsed.problems).toEqual([
      {
        location: { line: 1, entry: 1 },
        message: 'unknown field "quantity" (allowed: petId, delta, ref)',
      },
    ]);
  });

  it("names the field a differently cased one means: a Ref is no ref", () => {
    const parsed = parseJsonDeltas(
      '[\n{"petId": 1, "delta": -1},\n{"petId": 2, "delta": -1, "Ref": "zz1"}]',
    );
    expect(parsed.problems).toEqual([
      {
        location: { line: 3, entry: 2 },
        message: 'unknown field "Ref" (allowed: petId, delta, ref; did you mean "ref"?)',
      },
    ]);
  });

  it("refuses the whole file for it, rather than giving the row a --ref-prefix ref", () => {
    const json = '[{"petId": 1, "delta": -1, "Ref": "zz1"}]';
    const error = thrown(() =>
      parseDeltas(json, "json", "aj2.json", { kind: "prefix", prefix: "p" }),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toBe(
      'aj2.json entry 1 (line 1): unknown field "Ref" (allowed: petId, delta, ref; did you mean "ref"?)',
    );
    expect((error as UsageError).hint).toBe("fix the file and run again; nothing was applied");
  });
});

describe("parseDeltas", () => {
  const required = { kind: "required" } as const;

  it("keeps the file's own refs, and needs no flag when every row has one", () => {
    const text = "petId,delta,ref\n1,-1,till-7/0001\n\n2,+3,till-7/0002\n";
    expect(parseDeltas(text, "csv", "sales.csv", required).map((row) => row.ref)).toEqual([
      "till-7/0001",
      "till-7/0002",
    ]);
  });

  it("refuses rows without a ref when neither --ref-prefix nor --no-ref is given, naming the first line", () => {
    const error = thrown(() =>
      parseDeltas("petId,delta,ref\n1,-1,a\n2,-1\n3,-1,\n", "csv", "sales.csv", required),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toBe(
      "sales.csv line 3: a row without a ref (2 of 3 rows have none), and neither --ref-prefix nor --no-ref was given; nothing was sent",
    );
    expect((error as UsageError).hint).toBe(MISSING_REF_HINT);
    expect(MISSING_REF_HINT).toContain("a ref column");
    expect(MISSING_REF_HINT).toContain('--ref-prefix "till-1/$(date +%F)"');
    expect(MISSING_REF_HINT).toContain("--no-ref");
  });

  it("says when no row has a ref, and names JSON rows by entry", () => {
    const one = thrown(() => parseDeltas("petId,delta\n1,-1\n", "csv", "s.csv", required));
    expect((one as UsageError).message).toBe(
      "s.csv line 2: a row without a ref, and neither --ref-prefix nor --no-ref was given; nothing was sent",
    );
    const json = '[\n{"petId": 1, "delta": 1, "ref": "r1"},\n{"petId": 1, "delta": 1}\n]';
    const error = thrown(() => parseDeltas(json, "json", "d.json", required));
    expect((error as UsageError).message).toBe(
      "d.json entry 2 (line 3): a row without a ref, and neither --ref-prefix nor --no-ref was given; nothing was sent",
    );
  });

  it("gives a row without a ref <prefix>:<row number> with --ref-prefix; a row's own ref stays", () => {
    const text = "petId,delta,ref\n1,-1\n\n2,-1,till-7\n3,+2,\n";
    const refs = { kind: "prefix", prefix: "till-1/2026-11-26" } as const;
    expect(parseDeltas(text, "csv", "sales.csv", refs).map((row) => row.ref)).toEqual([
      "till-1/2026-11-26:1",
      "till-7",
      "till-1/2026-11-26:3",
    ]);
    const json = '[{"petId": 1, "delta": 1}, {"petId": 1, "delta": 1}]';
    expect(parseDeltas(json, "json", "d.json", refs).map((row) => row.ref)).toEqual([
      "till-1/2026-11-26:1",
      "till-1/2026-11-26:2",
    ]);
  });

  it("the same bytes give the refs the prefix says, not refs of the bytes", () => {
    const text = "petId,delta\n1,-1\n";
    const day = (prefix: string) =>
      parseDeltas(text, "csv", "sales.csv", { kind: "prefix", prefix })[0]?.ref;
    expect(day("till-1/2026-11-25")).toBe("till-1/2026-11-25:1");
    expect(day("till-1/2026-11-26")).toBe("till-1/2026-11-26:1");
  });

  it("leaves a row without a ref without one with --no-ref", () => {
    const text = "petId,delta,ref\n1,-1\n2,-1,keep\n";
    expect(parseDeltas(text, "csv", "s.csv", { kind: "none" }).map((row) => row.ref)).toEqual([
      undefined,
      "keep",
    ]);
  });

  it("refuses two rows with one ref, naming both lines (the second would be dropped)", () => {
    const error = thrown(() =>
      parseDeltas("petId,delta,ref\n1,-1,r-1\n2,-1,r-2\n1,-1,r-1\n", "csv", "s.csv", required),
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toBe('s.csv line 4: ref "r-1" again: line 2 has it too');
    expect((error as UsageError).hint).toContain("nothing was sent");
  });

  it("refuses a made ref that a row of the file already has", () => {
    const text = "petId,delta,ref\n1,-1,p:2\n2,-1\n";
    const error = thrown(() => parseDeltas(text, "csv", "s.csv", { kind: "prefix", prefix: "p" }));
    expect((error as UsageError).message).toBe('s.csv line 3: ref "p:2" again: line 2 has it too');
  });

  it("takes a prefix of 1 to 100 visible ASCII characters, so every made ref is valid", () => {
    expect(isValidRefPrefix("till-1/2026-11-26")).toBe(true);
    expect(isValidRefPrefix("x".repeat(100))).toBe(true);
    expect(prefixedRef("x".repeat(100), 999_999_999)).toHaveLength(110);
    for (const bad of ["", "x".repeat(101), "till 1", "café", "a\tb"]) {
      expect(isValidRefPrefix(bad)).toBe(false);
    }
  });

  it("refuses the whole file, naming every bad line (exit 2), when any row is bad", () => {
    const error = thrown(() =>
      parseDeltas("petId,delta\n1,0\n2,x\n3,1\n", "csv", "sales.csv", { kind: "none" }),
    );
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
