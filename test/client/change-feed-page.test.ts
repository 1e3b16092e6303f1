import { describe, expect, it } from "vitest";
import { decodeChangeFeedPage, parseJson } from "../../src/client/decode.js";

const record = (seq: string, extra = "") =>
  `{"seq":${seq},"at":"2026-11-22T14:03:12.481Z","petId":42,"previous":8,"quantity":7,"keyName":"till-1","requestId":null,"reason":null,"ref":null${extra}}`;

const page = (records: string[], next: string) =>
  parseJson(`{"changes":[${records.join(",")}],"next":${next}}`);

describe("decodeChangeFeedPage", () => {
  it("reads the changes with their seqs and the next cursor, int64 exact", () => {
    const decoded = decodeChangeFeedPage(
      page([record("9007199254740993"), record("9223372036854775807")], "9223372036854775807"),
      9007199254740992n,
      1000,
    );
    expect(decoded.next).toBe(9223372036854775807n);
    expect(decoded.changes.map((change) => change.seq)).toEqual([
      9007199254740993n,
      9223372036854775807n,
    ]);
    expect(decoded.changes[0]).toEqual({
      seq: 9007199254740993n,
      at: "2026-11-22T14:03:12.481Z",
      petId: 42n,
      previous: 8,
      quantity: 7,
      keyName: "till-1",
      requestId: null,
      reason: null,
      ref: null,
    });
  });

  it("reads a record from a server that sends no ref, and a first record with no previous", () => {
    const body = parseJson(
      `{"changes":[{"seq":3,"at":"2026-11-22T14:03:12.481Z","petId":42,"previous":null,` +
        `"quantity":7,"keyName":null,"requestId":"r-1","reason":"stocktake"}],"next":3}`,
    );
    expect(decodeChangeFeedPage(body, 0n, 10).changes).toEqual([
      {
        seq: 3n,
        at: "2026-11-22T14:03:12.481Z",
        petId: 42n,
        previous: null,
        quantity: 7,
        keyName: null,
        requestId: "r-1",
        reason: "stocktake",
        ref: null,
      },
    ]);
  });

  it("reads -0 as 0, as the checked reading of the same record does", () => {
    const body = page([record("1").replace('"quantity":7', '"quantity":-0')], "1");
    expect(Object.is(decodeChangeFeedPage(body, 0n, 10).changes[0]?.quantity, 0)).toBe(true);
  });

  it("takes an empty page whose next is the cursor asked after", () => {
    expect(decodeChangeFeedPage(page([], "17"), 17n, 100)).toEqual({ changes: [], next: 17n });
  });

  it.each([
    [
      "a seq not above the cursor",
      page([record("5")], "5"),
      5n,
      100,
      ".changes[0].seq is not above 5",
    ],
    [
      "seqs out of order",
      page([record("7"), record("6")], "6"),
      5n,
      100,
      ".changes[1].seq is not above 7",
    ],
    [
      "a repeated seq",
      page([record("7"), record("7")], "7"),
      0n,
      100,
      ".changes[1].seq is not above 7",
    ],
    [
      "next behind the last seq",
      page([record("7")], "6"),
      0n,
      100,
      ".next is not 7 (the last seq listed)",
    ],
    ["next ahead of the last seq", page([record("7")], "9"), 0n, 100, ".next is not 7"],
    [
      "next moved on an empty page",
      page([], "9"),
      3n,
      100,
      ".next is not 3 (after, as no change is listed)",
    ],
    [
      "more changes than asked for",
      page([record("1"), record("2")], "2"),
      0n,
      1,
      ".changes is not at most 1 changes",
    ],
    [
      "a seq that is a string",
      page([record('"7"')], "7"),
      0n,
      100,
      ".changes[0].seq is not an integer",
    ],
    ["no next", parseJson(`{"changes":[]}`), 0n, 100, ".next is not an integer"],
    ["no changes", parseJson(`{"next":0}`), 0n, 100, ".changes is not an array"],
    ["a bad record", page([`{"seq":1}`], "1"), 0n, 100, ".changes[0].at is not a string"],
    ["a record that is a list", page(["[1]"], "1"), 0n, 100, ".changes[0] is not an object"],
    [
      "a quantity that is a string",
      page([record("1").replace('"quantity":7', '"quantity":"7"')], "1"),
      0n,
      100,
      ".changes[0].quantity is not an integer",
    ],
    [
      "a previous with a fraction",
      page([record("1").replace('"previous":8', '"previous":8.5')], "1"),
      0n,
      100,
      ".changes[0].previous is not an integer",
    ],
    [
      "a petId beyond int64",
      page([record("1").replace('"petId":42', '"petId":9223372036854775808')], "1"),
      0n,
      100,
      ".changes[0].petId is not an int64",
    ],
    [
      "a keyName that is a number",
      page([record("1").replace('"keyName":"till-1"', '"keyName":5')], "1"),
      0n,
      100,
      ".changes[0].keyName is not a string",
    ],
    [
      "a ref that is a number",
      page([record("1").replace('"ref":null', '"ref":5')], "1"),
      0n,
      100,
      ".changes[0].ref is not a string",
    ],
  ])("refuses %s", (_name, body, after, limit, message) => {
    expect(() => decodeChangeFeedPage(body, after, limit)).toThrow(message);
  });
});
