import { describe, expect, it } from "vitest";
import { arrayEntryLines, parseJsonCounts } from "../../src/apply/json-counts.js";
import { MAX_ID_TEXT as MAX_ID } from "../support/ids.js";

describe("arrayEntryLines", () => {
  it("finds the line each top-level entry starts on, ignoring brackets inside strings", () => {
    const text = '[\n  {"petId": 1, "note": "[a,\\"b]"},\n\n  {"petId": [2,\n3]},\n  4]';
    expect(arrayEntryLines(text)).toEqual([2, 4, 6]);
  });

  it("finds none in an empty array", () => {
    expect(arrayEntryLines("[ \n ]")).toEqual([]);
  });
});

describe("parseJsonCounts", () => {
  it("reads entries with their number and line; status, as inventory list --json prints it, is allowed", () => {
    const text = `[\n  {"petId": 1, "quantity": 5, "status": "sold"},\n  {"quantity": 0, "petId": ${MAX_ID}}\n]\n`;
    expect(parseJsonCounts(text)).toEqual({
      rows: [
        { petId: 1n, quantity: 5, location: { line: 2, entry: 1 } },
        { petId: 9223372036854775807n, quantity: 0, location: { line: 3, entry: 2 } },
      ],
      problems: [],
    });
  });

  it("accepts a BOM and an empty array", () => {
    expect(parseJsonCounts("\uFEFF[]")).toEqual({ rows: [], problems: [] });
  });

  it.each([
    [
      '{"petId": 1, "quantity": "5"}',
      'invalid quantity "5" (a string): expected a JSON integer from 0 to 2147483647',
    ],
    [
      '{"petId": 1, "quantity": 2.5}',
      "invalid quantity 2.5: expected a JSON integer from 0 to 2147483647",
    ],
    [
      '{"petId": 1, "quantity": 5.0}',
      "invalid quantity 5.0: expected a JSON integer from 0 to 2147483647",
    ],
    [
      '{"petId": 1, "quantity": 1e3}',
      "invalid quantity 1e3: expected a JSON integer from 0 to 2147483647",
    ],
    [
      '{"petId": 1, "quantity": -1}',
      "invalid quantity -1: expected a JSON integer from 0 to 2147483647",
    ],
    [
      '{"petId": 1, "quantity": 2147483648}',
      "invalid quantity 2147483648: expected a JSON integer from 0 to 2147483647",
    ],
    [
      '{"petId": 1, "quantity": null}',
      "invalid quantity null: expected a JSON integer from 0 to 2147483647",
    ],
    ['{"petId": 1}', "missing quantity"],
    ['{"quantity": 1}', "missing petId"],
    [
      '{"petId": "1", "quantity": 1}',
      'invalid petId "1" (a string): expected a JSON integer from 1 to 9223372036854775807',
    ],
    [
      '{"petId": 0, "quantity": 1}',
      "invalid petId 0: expected a JSON integer from 1 to 9223372036854775807",
    ],
    [
      '{"petId": 9223372036854775808, "quantity": 1}',
      "invalid petId 9223372036854775808: expected a JSON integer from 1 to 9223372036854775807",
    ],
    [
      '{"petId": true, "quantity": 1}',
      "invalid petId true: expected a JSON integer from 1 to 9223372036854775807",
    ],
    ["[1, 5]", 'expected an object {"petId": ..., "quantity": ...}, found an array'],
    ["7", 'expected an object {"petId": ..., "quantity": ...}, found 7'],
  ])("reports %s as entry 2 on line 3", (entry, message) => {
    const parsed = parseJsonCounts(`[\n  {"petId": 9, "quantity": 1},\n  ${entry}\n]`);
    expect(parsed.problems).toEqual([{ location: { line: 3, entry: 2 }, message }]);
    expect(parsed.rows).toHaveLength(1);
  });

  it("refuses an unknown field, naming it and the fields allowed, and lists the entry's other problems", () => {
    const parsed = parseJsonCounts(
      '[\n  {"petId": 9, "quantity": 1},\n  {"petId": 1, "quantity": 6, "extra": 1},\n  {"petId": 2, "Quantity": 3}\n]',
    );
    expect(parsed.problems).toEqual([
      {
        location: { line: 3, entry: 2 },
        message: 'unknown field "extra" (allowed: petId, quantity, status)',
      },
      {
        location: { line: 4, entry: 3 },
        message:
          'unknown field "Quantity" (allowed: petId, quantity, status; did you mean "quantity"?)',
      },
      { location: { line: 4, entry: 3 }, message: "missing quantity" },
    ]);
  });

  it("refuses a document that is not an array", () => {
    expect(parseJsonCounts('{"petId": 1, "quantity": 5}').problems).toEqual([
      {
        location: { line: 1 },
        message: 'expected a JSON array of {"petId": ..., "quantity": ...} objects',
      },
    ]);
  });

  it("has no leading zeros or spaces to allow: JSON itself refuses 042", () => {
    expect(parseJsonCounts('[{"petId": 042, "quantity": 1}]').problems).toEqual([
      { location: { line: 1 }, message: expect.stringMatching(/^not valid JSON: /) as string },
    ]);
    expect(parseJsonCounts('[{"petId": 42, "quantity": 1}]').rows).toEqual([
      { petId: 42n, quantity: 1, location: { line: 1, entry: 1 } },
    ]);
  });

  it("reports a syntax error with its line", () => {
    expect(
      parseJsonCounts('[\n  {"petId": 1, "quantity": 5},\n  {"petId": 2,}\n]').problems,
    ).toEqual([
      { location: { line: 3 }, message: "not valid JSON: Quoted object key expected but got '}'" },
    ]);
  });

  it("reports a duplicate key as invalid JSON rather than picking one", () => {
    const parsed = parseJsonCounts('[{"petId": 1, "quantity": 5, "quantity": 6}]');
    expect(parsed.problems[0]?.message).toBe("not valid JSON: Duplicate key 'quantity'");
  });
});
