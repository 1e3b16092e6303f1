/**
 * The document's schemas of If-Match and X-Change-Reason accept exactly the values the server
 * accepts: each schema, compiled by Ajv as a client's validator would, against the server's own
 * readers, on generated header values. A header value is bytes, one character each (as Node.js
 * hands it to the server and `fetch` sends it), so the values are made of U+0000 to U+00FF.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeChangeReason } from "../../src/api/change-reason.js";
import { buildOpenApiDocument } from "../../src/api/openapi.js";
import { parseChangeReason } from "../../src/server/change-reason.js";
import { HttpError } from "../../src/server/http-error.js";
import { parseIfMatch } from "../../src/server/if-match.js";

interface Parameter {
  name: string;
  in: string;
  schema: object;
}

/** The validator of a header parameter of an operation, as the served document declares it. */
function headerSchema(path: "/inventory/{petId}" | "/inventory/batch", name: string) {
  const paths = buildOpenApiDocument().paths as Record<
    string,
    Record<string, { parameters?: Parameter[] }>
  >;
  const operation = path === "/inventory/batch" ? paths[path]?.post : paths[path]?.patch;
  const parameter = operation?.parameters?.find((p) => p.in === "header" && p.name === name);
  if (!parameter) throw new Error(`no ${name} on ${path}`);
  const ajv = new Ajv2020({ strict: true, strictTypes: false });
  const schema = { ...parameter.schema } as Record<string, unknown>;
  delete schema.examples;
  return ajv.compile(schema);
}

/** Whether a server reader accepts `value`: it returns, or throws the 400 `invalid_header`. */
function accepts(read: (value: string) => unknown, value: string): boolean {
  try {
    read(value);
    return true;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ statusCode: 400, code: "invalid_header" });
    return false;
  }
}

/** One character of a header value: any byte, printable ASCII and obs-text more often. */
const headerCharacter = fc
  .oneof(
    { weight: 4, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x00, max: 0xff }) },
  )
  .map((code) => String.fromCharCode(code));

describe("the If-Match schema", () => {
  const validate = headerSchema("/inventory/{petId}", "If-Match");
  const serverAccepts = (value: string) => accepts(parseIfMatch, value);

  /** Mostly etagc, with a comma, a quote, a space or a tab now and then. */
  const tagCharacter = fc.oneof(
    { weight: 6, arbitrary: headerCharacter },
    { weight: 2, arbitrary: fc.constantFrom(",", '"', " ", "\t", "\u00fc", "\u00ff", "\u0080") },
  );
  const entityTag = fc
    .tuple(
      fc.constantFrom("", "", "W/", "w/", "W"),
      fc.string({ unit: tagCharacter, maxLength: 6 }),
    )
    .map(([weak, opaque]) => `${weak}"${opaque}"`);
  /** A header built from the grammar's pieces, often well-formed, often nearly so. */
  const ifMatch = fc
    .array(
      fc.oneof(
        { weight: 5, arbitrary: entityTag },
        { weight: 3, arbitrary: fc.constantFrom(",", ", ", " ,", ",,", " ", "\t") },
        { weight: 1, arbitrary: fc.constantFrom("*", '"', "W/", "\u00a0", "\u000b") },
        { weight: 1, arbitrary: headerCharacter },
      ),
      { maxLength: 8 },
    )
    .map((pieces) => pieces.join(""));

  it("accepts exactly what the server accepts, on generated values", () => {
    fc.assert(
      fc.property(ifMatch, (value) => {
        expect(validate(value), JSON.stringify(value)).toBe(serverAccepts(value));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['"4,5"', true],
    ['"4,5", "7"', true],
    ['W/"a,b",,"c"', true],
    ['"\u00fc"', true],
    ['"\u00c3\u00bc"', true],
    [' \t"3" ,\t"7" , ', true],
    ["*", true],
    [" * ", true],
    ["*,", false],
    [", *", false],
    ['*, "7"', false],
    ['"7" "8"', false],
    ['"a b"', false],
    ["", false],
    [",", false],
    ['"\u20ac"', false],
  ])("agrees with the server on %j (%s)", (value, accepted) => {
    expect(serverAccepts(value)).toBe(accepted);
    expect(validate(value)).toBe(accepted);
  });
});

describe.each(["/inventory/{petId}", "/inventory/batch"] as const)(
  "the X-Change-Reason schema of %s",
  (path) => {
    const validate = headerSchema(path, "X-Change-Reason");
    const serverAccepts = (value: string) => accepts(parseChangeReason, value);

    /** Texts of every kind of code point, as the CLI sends them (their UTF-8 bytes). */
    const anyText = fc.oneof(
      fc.string({ unit: "binary", maxLength: 12 }),
      fc.string({ unit: "binary", minLength: 195, maxLength: 205 }),
      fc.string({ unit: "grapheme", minLength: 190, maxLength: 210 }),
      fc
        .array(
          fc.constantFrom(
            "a",
            " ",
            "\u00e9",
            "\u{1f408}",
            "\u0085",
            "\u009f",
            "\u00a0",
            "\u2027",
            "\u2028",
            "\u2029",
            "\u202a",
            "\ufeff",
            "\u{10ffff}",
            "\u007f",
            "\t",
          ),
          { minLength: 1, maxLength: 205 },
        )
        .map((characters) => characters.join("")),
    );
    /** Raw bytes: malformed UTF-8 (overlong forms, surrogates, above U+10FFFF, cut sequences). */
    const anyBytes = fc.oneof(
      fc.string({ unit: headerCharacter, maxLength: 12 }),
      fc
        .array(
          fc.constantFrom(
            "a",
            "\u00c0\u0080",
            "\u00c2\u0080",
            "\u00c2\u00a0",
            "\u00e0\u0080\u0080",
            "\u00e0\u00a0\u0080",
            "\u00ed\u00a0\u0080",
            "\u00ed\u009f\u00bf",
            "\u00f0\u0080\u0080\u0080",
            "\u00f4\u008f\u00bf\u00bf",
            "\u00f4\u0090\u0080\u0080",
            "\u00f5\u0080\u0080\u0080",
            "\u00e2\u0080",
            "\u00bf",
            "\u00ff",
          ),
          { minLength: 1, maxLength: 8 },
        )
        .map((pieces) => pieces.join("")),
    );

    it("accepts exactly what the server accepts, on the UTF-8 bytes of generated texts", () => {
      fc.assert(
        fc.property(anyText, (text) => {
          const value = encodeChangeReason(text);
          expect(validate(value), JSON.stringify(text)).toBe(serverAccepts(value));
        }),
        { numRuns: 2000 },
      );
    });

    it("accepts exactly what the server accepts, on generated bytes", () => {
      fc.assert(
        fc.property(anyBytes, (value) => {
          expect(validate(value), JSON.stringify(value)).toBe(serverAccepts(value));
        }),
        { numRuns: 2000 },
      );
    });

    it.each([
      ["recount after delivery", true],
      ["März 🐈", true],
      ["é".repeat(200), true],
      ["🐈".repeat(200), true],
      ["é".repeat(201), false],
      ["a".repeat(201), false],
      ["", false],
      ["line\nbreak", false],
      ["\u0085", false],
      ["\u2028", false],
      ["\ufeff", true],
    ])("agrees with the server on the bytes of %j (%s)", (text, accepted) => {
      const value = encodeChangeReason(text);
      expect(serverAccepts(value)).toBe(accepted);
      expect(validate(value)).toBe(accepted);
    });

    it("refuses a text sent as ISO-8859-1 instead of UTF-8, as the server does", () => {
      expect(serverAccepts("M\u00e4rz")).toBe(false);
      expect(validate("M\u00e4rz")).toBe(false);
    });
  },
);
