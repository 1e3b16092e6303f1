/**
 * parseExactJson takes the native parser only when no number outside a string could be
 * inexact (16 digits or more, a fraction, an exponent); text inside strings (times, UUIDs,
 * escaped quotes) no longer sends a body to the lossless parser, and never hides a number.
 */
import fc from "fast-check";
import { isLosslessNumber, parse } from "lossless-json";
import { describe, expect, it } from "vitest";
import {
  exactInteger,
  parseExactJson,
  parseRequestJson,
  RepeatedNameError,
  repeatedName,
} from "../../src/api/exact-json.js";

/**
 * The two parses agree, a plain number being exactly the integer lossless-json kept in
 * integer form ("-0" is 0 either way, as before).
 */
function expectSameExactly(exact: unknown, lossless: unknown): void {
  if (typeof exact === "number") {
    expect(isLosslessNumber(lossless) && /^-?[0-9]+$/.test(lossless.value)).toBe(true);
    expect(BigInt((lossless as { value: string }).value)).toBe(BigInt(exact));
  } else if (isLosslessNumber(exact)) {
    expect(isLosslessNumber(lossless) && lossless.value).toBe(exact.value);
  } else if (Array.isArray(exact)) {
    expect(Array.isArray(lossless) && lossless.length).toBe(exact.length);
    exact.forEach((item, index) => {
      expectSameExactly(item, (lossless as unknown[])[index]);
    });
  } else if (typeof exact === "object" && exact !== null) {
    const other = lossless as Record<string, unknown>;
    expect(Object.keys(exact)).toEqual(Object.keys(other));
    for (const [key, value] of Object.entries(exact)) expectSameExactly(value, other[key]);
  } else {
    expect(exact).toEqual(lossless);
  }
}

describe("parseExactJson", () => {
  it("reads a change feed page natively: times and UUIDs in strings are not numbers", () => {
    const text =
      '{"changes":[{"seq":41231,"at":"2026-11-22T14:03:12.481Z","petId":42,"previous":8,' +
      '"quantity":7,"keyName":"till-1","requestId":"0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b",' +
      '"reason":"v1.2e5 \\"1.5\\"","ref":"123456789012345678"}],"next":41231}';
    const value = parseExactJson(text) as { changes: { seq: unknown }[]; next: unknown };
    expect(value).toEqual(JSON.parse(text));
    expect(typeof value.changes[0]?.seq).toBe("number");
    expect(typeof value.next).toBe("number");
  });

  it.each([
    ['{"at":"09:00:00.123Z","q":1.0}', "q", "1.0"],
    ['{"id":"4e5f","q":1e2}', "q", "1e2"],
    ['{"s":"x\\\\","q":2.5}', "q", "2.5"],
    ['{"s":"\\"","q":12345678901234567}', "q", "12345678901234567"],
    ['{"s":"a\\"b:1","q":-0.0}', "q", "-0.0"],
    ['{"s":"","q":9007199254740993}', "q", "9007199254740993"],
  ])("keeps a number outside strings exact beside awkward strings: %s", (text, key, digits) => {
    const value = parseExactJson(text) as Record<string, unknown>;
    const number = value[key];
    expect(isLosslessNumber(number) && number.value).toBe(digits);
  });

  it("throws SyntaxError on text that is not JSON, strings or not", () => {
    for (const text of ['{"a":"1.5', '{"a":1.5', '{"a":"x"', '"\\"', "<html>"]) {
      expect(() => parseExactJson(text)).toThrow(SyntaxError);
    }
  });

  it("agrees exactly with lossless-json on any mix of strings and numbers", () => {
    // Strings made of what numbers and JSON syntax are made of, escapes included.
    const text = fc
      .string({
        unit: fc.constantFrom(...Array.from('0123456789.eE+-:,[]{} x"\\\n\u0001')),
        maxLength: 12,
      })
      .map((value) => JSON.stringify(value));
    const number = fc.oneof(
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.integer().map(String),
      fc.constantFrom("1.0", "2.5", "-0.0", "1e2", "1E-2", "0.1e+5", "0", "-0"),
    );
    const value: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        number,
        text,
        fc.constantFrom("true", "false", "null"),
        fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
        // Keys once each: lossless-json refuses a repeated key, JSON.parse keeps the last.
        fc
          .uniqueArray(fc.tuple(text, tie("value")), {
            maxLength: 4,
            selector: ([key]) => JSON.parse(key) as string,
          })
          .map((entries) => `{${entries.map(([key, item]) => `${key}: ${item}`).join(" ,")}}`),
      ),
    })).value;
    fc.assert(
      fc.property(value, (json) => {
        expectSameExactly(parseExactJson(json), parse(json));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("exactInteger", () => {
  it.each([
    ["0", 0n],
    ["-0", 0n],
    ["42", 42n],
    ["4.0", 4n],
    ["1e2", 100n],
    ["1E+2", 100n],
    ["1.5e1", 15n],
    ["1500e-2", 15n],
    ["0.0e-7", 0n],
    ["-2.50e1", -25n],
    ["9223372036854775807", 9223372036854775807n],
    ["9223372036854775808.000", 9223372036854775808n],
  ])("reads %s as %s", (text, value) => {
    expect(exactInteger(text)).toBe(value);
  });

  it.each([
    "2.5",
    "2147483647.0000001",
    "1e-1",
    "1501e-2",
    "0.1e1000000000",
    "1e41",
    "1e999999999999",
    "1.",
    ".5",
    "01",
    "+1",
    "1e",
    "abc",
  ])("finds no integer in %s", (text) => {
    expect(exactInteger(text)).toBeUndefined();
  });

  it("reads n × 10^k exactly, and finds no integer in n plus a small fraction", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e6, max: 1e6 }),
        fc.integer({ min: 0, max: 6 }),
        (n, shift) => {
          const text = `${n}e${shift}`;
          expect(exactInteger(text)).toBe(BigInt(n) * 10n ** BigInt(shift));
          const fraction = `${n}.${"0".repeat(shift)}1`;
          expect(exactInteger(fraction)).toBeUndefined();
        },
      ),
    );
  });
});

describe("repeatedName", () => {
  it.each([
    ['{"a":1,"a":2}', "a"],
    ['{"a":1,"b":{"c":1,"c":2}}', "c"],
    ['[{"a":1},{"a":1,"b":2,"b":3}]', "b"],
    ['{"quantity":5,"\\u0071uantity":7}', "quantity"],
    ['{ "a" : 1 , "a"\n: 2 }', "a"],
    ['{"s":"}{\\"x\\":","x":1,"x":2}', "x"],
  ])("finds the name %s repeats", (text, name) => {
    expect(repeatedName(text)).toBe(name);
  });

  it.each([
    '{"a":1,"b":2}',
    '[{"a":1},{"a":2}]',
    '{"a":{"a":{"a":1}}}',
    '{"a":"a","b":["a","a"]}',
    '{"a":"\\"a\\":1,\\"a\\":2"}',
    '{"a":1,"A":2}',
    "[1,2,3]",
    '"a"',
  ])("finds none in %s", (text) => {
    expect(repeatedName(text)).toBeUndefined();
  });
});

describe("parseRequestJson", () => {
  it("reads the native parser's answer when every number is a small integer", () => {
    expect(parseRequestJson('{"changes":[{"petId":1,"delta":-2,"ref":"till-1/2026.1"}]}')).toEqual({
      changes: [{ petId: 1, delta: -2, ref: "till-1/2026.1" }],
    });
  });

  it("makes a whole number written otherwise a number, and keeps the rest exact", () => {
    const value = parseRequestJson(
      '{"a":5.0,"b":1e2,"c":2147483647.0000001,"d":9223372036854775807,"e":2.5}',
    ) as Record<string, unknown>;
    expect(value.a).toBe(5);
    expect(value.b).toBe(100);
    for (const [key, text] of [
      ["c", "2147483647.0000001"],
      ["d", "9223372036854775807"],
      ["e", "2.5"],
    ] as const) {
      const number = value[key];
      expect(isLosslessNumber(number) && number.value).toBe(text);
    }
  });

  it("refuses a name said twice, whatever the numbers", () => {
    for (const text of ['{"quantity":5,"quantity":7}', '{"x":1.5,"quantity":5,"quantity":5}']) {
      expect(() => parseRequestJson(text)).toThrow(RepeatedNameError);
    }
  });

  it("throws SyntaxError on text that is not JSON", () => {
    for (const text of ["", '{"a":', '{"a":1.5', "<html>"]) {
      expect(() => parseRequestJson(text)).toThrow(SyntaxError);
    }
  });
});
