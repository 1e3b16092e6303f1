import { describe, expect, it } from "vitest";
import { HttpError } from "../../src/server/http-error.js";
import { conditionOf, parseIfMatch } from "../../src/server/if-match.js";

describe("parseIfMatch", () => {
  it("is undefined without the header", () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
  });

  it.each([
    ["*", { kind: "any" }],
    [" * ", { kind: "any" }],
    ['"7"', { kind: "tags", tags: ['"7"'] }],
    ['"3", "7"', { kind: "tags", tags: ['"3"', '"7"'] }],
    ['"3","7" ,W/"9"', { kind: "tags", tags: ['"3"', '"7"', 'W/"9"'] }],
    // RFC 9110, 5.6.1: empty list elements are allowed.
    [', "3",, "7" ,', { kind: "tags", tags: ['"3"', '"7"'] }],
    ['""', { kind: "tags", tags: ['""'] }],
    ['"abc"', { kind: "tags", tags: ['"abc"'] }],
  ])("reads %j", (header, parsed) => {
    expect(parseIfMatch(header)).toEqual(parsed);
  });

  it.each([
    "",
    "   ",
    ",",
    "7",
    '"7',
    '7"',
    "W/7",
    'w/"7"',
    '"7" "8"',
    '"7""8"',
    '"a b"',
    '"*"x',
    '*, "7"',
    '"7", *',
    "garbage",
    "\u00e9",
  ])("refuses %j with 400 invalid_header", (header) => {
    let thrown: unknown;
    try {
      parseIfMatch(header);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HttpError);
    expect(thrown).toMatchObject({ statusCode: 400, code: "invalid_header" });
    expect((thrown as HttpError).message).toMatch(/^If-Match must be \* or a list/);
  });
});

describe("conditionOf", () => {
  it("makes * match any existing entry", () => {
    expect(conditionOf({ kind: "any" })).toEqual({ kind: "exists" });
  });

  it("keeps the quantities of strong tags, without duplicates", () => {
    expect(conditionOf({ kind: "tags", tags: ['"3"', '"7"', '"3"', '"0"'] })).toEqual({
      kind: "quantity_in",
      quantities: [3, 7, 0],
    });
  });

  it("drops weak tags (strong comparison) and tags no entry can have", () => {
    expect(
      conditionOf({
        kind: "tags",
        tags: ['W/"7"', '"07"', '"-1"', '"abc"', '""', '"2147483648"', '"99999999999"'],
      }),
    ).toEqual({ kind: "quantity_in", quantities: [] });
    expect(conditionOf({ kind: "tags", tags: ['W/"7"', '"2147483647"'] })).toEqual({
      kind: "quantity_in",
      quantities: [2147483647],
    });
  });
});
