import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpError } from "../../src/server/http-error.js";
import { conditionOf, parseIfMatch } from "../../src/server/if-match.js";
import { AUTH, createTestApp, type TestApp } from "./fixture.js";

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
    // A comma is an etagc: inside the quotes it is part of the tag, not a list separator.
    ['"4,5"', { kind: "tags", tags: ['"4,5"'] }],
    ['"4,5", "7"', { kind: "tags", tags: ['"4,5"', '"7"'] }],
    ['W/"a,b",,"c,d"', { kind: "tags", tags: ['W/"a,b"', '"c,d"'] }],
    ['","', { kind: "tags", tags: ['","'] }],
    // obs-text: the bytes 0x80-0xFF, one character each as Node.js reads a header ("ü" in UTF-8).
    ['"\u00fc"', { kind: "tags", tags: ['"\u00fc"'] }],
    ['"\u00c3\u00bc", W/"\u00ff"', { kind: "tags", tags: ['"\u00c3\u00bc"', 'W/"\u00ff"'] }],
    // OWS is spaces and tabs, around the list and around each comma.
    ['\t"3"\t,\t"7" ', { kind: "tags", tags: ['"3"', '"7"'] }],
    ["\t*\t", { kind: "any" }],
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
    // `*` only alone (RFC 9110: "*" / #entity-tag), never with a list's commas.
    "*,",
    ", *",
    "*, *",
    "**",
    '"7",*',
    '*"7"',
    // Two tags need a comma between them, also when the first holds one.
    '"4,5" "6"',
    '"4,5"6',
    // Not OWS: a no-break space (obs-text outside the quotes), a line feed, a vertical tab.
    '\u00a0"7"',
    '"7"\n',
    '\u000b"7"',
    // Not etagc: a space, a tab, DEL, a control character, a character no header byte can be.
    '"a\tb"',
    '"\u007f"',
    '"\u0001"',
    '"\u20ac"',
    'W/ "7"',
    '"c, d"',
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
        tags: [
          'W/"7"',
          '"07"',
          '"-1"',
          '"abc"',
          '""',
          '"2147483648"',
          '"99999999999"',
          '"4,5"',
          '" 4"',
        ],
      }),
    ).toEqual({ kind: "quantity_in", quantities: [] });
    expect(conditionOf({ kind: "tags", tags: ['W/"7"', '"2147483647"'] })).toEqual({
      kind: "quantity_in",
      quantities: [2147483647],
    });
  });
});

describe("PATCH with an entity tag that holds a comma", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const patch = (petId: number, ifMatch: string) =>
    t.app.inject({
      method: "PATCH",
      url: `/v1/inventory/${String(petId)}`,
      headers: { ...AUTH, "if-match": ifMatch },
      payload: { quantity: 4 },
    });

  it('is 412 with the current ETag: "4,5" is one tag, which no quantity has', async () => {
    const response = await patch(1, '"4,5"');
    expect(response.statusCode).toBe(412);
    expect(response.json()).toMatchObject({ code: "precondition_failed", status: 412 });
    expect(response.headers.etag).toBe('"3"');
  });

  it("writes when another tag of the list matches", async () => {
    const response = await patch(1, '"3,5", "3"');
    expect(response.statusCode).toBe(200);
    expect(response.headers.etag).toBe('"4"');
  });

  it("is 404 for a pet that does not exist", async () => {
    expect((await patch(77, '"4,5"')).statusCode).toBe(404);
  });
});
