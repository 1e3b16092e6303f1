/**
 * The JSON text of history records and feed pages (src/server/routes/change-json.ts), written
 * straight from the records, is JSON.stringify's text of the same records byte for byte: int64
 * seqs and petIds exact, `at` as toISOString writes it, strings escaped as JSON.stringify does.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  isoTime,
  serializeChanges,
  serializeFeedPage,
} from "../../src/server/routes/change-json.js";
import type { FeedRecord } from "../../src/server/store/store.js";

const MAX_INT64 = 2n ** 63n - 1n;

/** A bigint written into JSON.stringify's output as the number it is (no test value holds "#int64:"). */
const int64 = (value: bigint): string => `#int64:${value}#`;
const unmark = (json: string): string => json.replace(/"#int64:(-?\d+)#"/g, "$1");

/** The record as JSON.stringify writes it, int64s as their digits. */
const plain = (record: FeedRecord) => ({
  seq: int64(record.seq),
  at: new Date(record.at).toISOString(),
  petId: int64(record.petId),
  previous: record.previous,
  quantity: record.quantity,
  keyName: record.keyName,
  requestId: record.requestId,
  reason: record.reason,
  ref: record.ref,
});

const expectedPage = (records: readonly FeedRecord[], after: bigint): string =>
  unmark(
    JSON.stringify({ changes: records.map(plain), next: int64(records.at(-1)?.seq ?? after) }),
  );

const expectedHistory = (records: readonly FeedRecord[]): string =>
  unmark(JSON.stringify(records.map(plain)));

const record = (fields: Partial<FeedRecord> = {}): FeedRecord => ({
  seq: 1n,
  petId: 1n,
  at: Date.UTC(2026, 10, 25, 9, 0, 0, 123),
  previous: 3,
  quantity: 7,
  keyName: "till-1",
  requestId: "0b8f3a52-7c1e-4d8b-9a4e-5f6a7b8c9d0e",
  reason: null,
  ref: null,
  ...fields,
});

/** Strings JSON.stringify escapes, or writes as they are while a careless writer would not. */
const AWKWARD_STRINGS = [
  "",
  'say "hi"',
  "back\\slash",
  "\\",
  '"',
  "tab\there, newline\nthere, return\r, feed\f, backspace\b",
  "\u0000\u0001\u0007\u000b\u000e\u001b\u001f",
  "\u007f del, \u0080 C1, \u00a0 nbsp",
  "naïve café, Grüße, 東京",
  "emoji 📦 pair",
  "lone high \ud800 surrogate",
  "lone low \udc00 surrogate",
  "\udbff",
  "line\u2028separator\u2029paragraph",
  "</script><!--",
  "null",
  "#",
];

describe("serializeFeedPage and serializeChanges", () => {
  it("write JSON.stringify's text for int64s past 2^53, null previous and awkward strings", () => {
    const records: FeedRecord[] = [
      record({ seq: 1n, petId: 1n, previous: null, keyName: null, requestId: null }),
      record({ seq: 2n ** 53n + 1n, petId: MAX_INT64, previous: 0, quantity: 0 }),
      record({ seq: MAX_INT64, petId: 2n ** 53n, previous: 2_147_483_647, quantity: 1 }),
      ...AWKWARD_STRINGS.map((text, index) =>
        record({
          seq: 100n + BigInt(index),
          keyName: text,
          requestId: text,
          reason: text,
          ref: text,
        }),
      ),
    ];
    expect(serializeFeedPage(records, 0n)).toBe(expectedPage(records, 0n));
    expect(serializeChanges(records)).toBe(expectedHistory(records));
    expect(serializeFeedPage(records, 0n)).toContain(`"petId":${MAX_INT64},`);
    expect(serializeFeedPage(records.slice(0, 3), 0n)).toMatch(new RegExp(`"next":${MAX_INT64}}$`));
  });

  it("write an empty page with next = after, int64 exact, and an empty history", () => {
    expect(serializeFeedPage([], 0n)).toBe('{"changes":[],"next":0}');
    expect(serializeFeedPage([], MAX_INT64)).toBe(`{"changes":[],"next":${MAX_INT64}}`);
    expect(serializeFeedPage([], 2n ** 53n + 1n)).toBe(expectedPage([], 2n ** 53n + 1n));
    expect(serializeChanges([])).toBe("[]");
  });

  it("write any strings and numbers as JSON.stringify does", () => {
    // Any UTF-16 code unit, lone surrogates and controls included.
    const text = fc.option(
      fc.string({ unit: fc.nat(0xffff).map((code) => String.fromCharCode(code)), maxLength: 12 }),
    );
    const int64s = fc.bigInt({ min: 0n, max: MAX_INT64 });
    const arbitraryRecord = fc.record({
      seq: int64s,
      petId: int64s,
      at: fc.integer({ min: -8.64e15, max: 8.64e15 }),
      previous: fc.option(fc.integer({ min: 0, max: 2_147_483_647 })),
      quantity: fc.integer({ min: 0, max: 2_147_483_647 }),
      keyName: text,
      requestId: text,
      reason: text,
      ref: text,
    });
    fc.assert(
      fc.property(fc.array(arbitraryRecord, { maxLength: 5 }), int64s, (records, after) => {
        expect(serializeFeedPage(records, after)).toBe(expectedPage(records, after));
        expect(serializeChanges(records)).toBe(expectedHistory(records));
      }),
      { numRuns: 500 },
    );
  });
});

describe("isoTime", () => {
  it("is toISOString's text, from one second to the next and back", () => {
    const base = Date.UTC(2026, 10, 25, 9, 0, 0);
    const times = [
      base,
      base + 1,
      base + 9,
      base + 10,
      base + 99,
      base + 100,
      base + 999,
      base + 1000,
      base + 5,
      base - 1,
      base + 86_400_000,
      base,
    ];
    for (const at of times) expect(isoTime(at)).toBe(new Date(at).toISOString());
  });

  it("is toISOString's text at the edges of a Date: before 1970, six-digit years, the limits", () => {
    const times = [
      0,
      1,
      -1,
      -999,
      -1000,
      -1001,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      Date.UTC(-1, 0, 1, 0, 0, 0, 1),
      Date.UTC(0, 0, 1) - 1,
      8.64e15,
      -8.64e15,
      8.64e15 - 1,
      -8.64e15 + 1,
      1.5,
      -0.5,
    ];
    for (const at of times) expect(isoTime(at)).toBe(new Date(at).toISOString());
  });

  it("throws as toISOString does for a time no Date holds", () => {
    for (const at of [8.64e15 + 1, -8.64e15 - 1, Number.NaN, Infinity, 8.64e15 + 500]) {
      expect(() => isoTime(at)).toThrow(RangeError);
    }
  });
});
