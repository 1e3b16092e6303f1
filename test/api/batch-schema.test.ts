/**
 * batchRequestSchema (what the OpenAPI document tells clients and Prism) and readBatchRequest
 * (what the server checks) are written separately; here they judge the same bodies. The
 * petIds stay below 2^53, where ajv's view of a number is exact.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { readBatchRequest } from "../../src/api/batch.js";
import { parseRequestJson } from "../../src/api/exact-json.js";
import {
  batchChangeResultSchema,
  batchRejectionSchema,
  batchRequestSchema,
  batchResponseSchema,
} from "../../src/api/schemas.js";
import type { BatchChangeResult } from "../../src/api/types.js";
import { renderBatch } from "../../src/server/routes/inventory-batch.js";

// Strict: a misspelt keyword in the schema fails here rather than being ignored.
const ajv = new Ajv2020({ strict: true });
// `format: int64` bounds an integer as validators of OpenAPI documents read it (Prism's
// ajv-formats): from -2^63 to 2^63 - 1, as far as a JavaScript number tells them apart.
ajv.addFormat("int64", {
  type: "number",
  validate: (value: number) =>
    Number.isInteger(value) && value >= -(2 ** 63) && value <= 2 ** 63 - 1,
});
const validate = ajv.compile(batchRequestSchema);

/** Whether each side accepts the body, written as JSON text. */
function judge(text: string): { schema: boolean; reader: boolean } {
  return {
    schema: validate(JSON.parse(text)),
    reader: readBatchRequest(parseRequestJson(text)).ok,
  };
}

const change = (fields: Record<string, unknown>) => JSON.stringify({ changes: [fields] });
const many = (count: number) =>
  JSON.stringify({ changes: Array.from({ length: count }, () => ({ petId: 1, delta: -1 })) });

const ACCEPTED: [name: string, body: string][] = [
  ["a set", change({ petId: 1, quantity: 4 })],
  ["a set to 0", change({ petId: 1, quantity: 0 })],
  ["a set to the largest quantity", change({ petId: 1, quantity: 2147483647 })],
  ["a set with ifQuantity and ref", change({ petId: 7, quantity: 4, ifQuantity: 3, ref: "c:1" })],
  ["a delta", change({ petId: 1, delta: -2 })],
  ["the largest delta", change({ petId: 1, delta: 2147483647 })],
  ["the smallest delta", change({ petId: 1, delta: -2147483647 })],
  ["a delta with ifQuantity 0", change({ petId: 1, delta: 5, ifQuantity: 0 })],
  ["a ref of one character", change({ petId: 1, delta: 1, ref: "!" })],
  ["a ref of 128 characters", change({ petId: 1, delta: 1, ref: "~".repeat(128) })],
  ["a ref of every visible ASCII character", change({ petId: 1, delta: 1, ref: visibleAscii() })],
  ["the largest petId ajv sees exactly", change({ petId: 2 ** 53 - 1, delta: 1 })],
  [
    "atomic and dryRun, sets and deltas",
    JSON.stringify({
      atomic: true,
      dryRun: true,
      changes: [
        { petId: 1, quantity: 4, ifQuantity: 3 },
        { petId: 2, delta: -1, ref: "R-2026-11-22-0042/1" },
      ],
    }),
  ],
  [
    "atomic and dryRun false",
    JSON.stringify({ atomic: false, dryRun: false, changes: [{ petId: 1, quantity: 1 }] }),
  ],
  ["a count", change({ petId: 1, count: 4, asOf: 3 })],
  ["a count of 0 as of seq 0, with a ref", change({ petId: 1, count: 0, asOf: 0, ref: "c:s:1" })],
  ["the largest count", change({ petId: 1, count: 2147483647, asOf: 2 ** 53 - 1 })],
  [
    "counts among sets and deltas",
    JSON.stringify({
      atomic: true,
      changes: [
        { petId: 1, count: 4, asOf: 3 },
        { petId: 2, delta: -1 },
        { petId: 1, quantity: 2 },
      ],
    }),
  ],
  ["10000 changes", many(10_000)],
  ["spacing around the values", '{ "changes" : [ { "petId" : 1 , "delta" : -1 } ] }'],
];

const REFUSED: [name: string, body: string][] = [
  ["no changes field", "{}"],
  ["no change", '{"changes":[]}'],
  ["10001 changes", many(10_001)],
  ["changes not an array", '{"changes":{"petId":1,"delta":1}}'],
  ["a body that is an array", '[{"petId":1,"delta":1}]'],
  ["a body that is a string", '"changes"'],
  ["a body that is null", "null"],
  ["an unknown field of the batch", '{"changes":[{"petId":1,"delta":1}],"force":true}'],
  ["atomic as a string", '{"atomic":"true","changes":[{"petId":1,"delta":1}]}'],
  ["dryRun as a number", '{"dryRun":1,"changes":[{"petId":1,"delta":1}]}'],
  ["atomic null", '{"atomic":null,"changes":[{"petId":1,"delta":1}]}'],
  ["a change that is a number", '{"changes":[1]}'],
  ["a change that is null", '{"changes":[null]}'],
  ["a change that is an array", '{"changes":[[1,2]]}'],
  ["neither quantity nor delta", change({ petId: 1 })],
  ["both quantity and delta", change({ petId: 1, quantity: 4, delta: 1 })],
  ["no petId", change({ quantity: 4 })],
  ["petId 0", change({ petId: 0, quantity: 4 })],
  ["a negative petId", change({ petId: -1, quantity: 4 })],
  ["petId a string", change({ petId: "1", quantity: 4 })],
  ["petId a fraction", change({ petId: 1.5, quantity: 4 })],
  ["petId null", change({ petId: null, quantity: 4 })],
  ["a negative quantity", change({ petId: 1, quantity: -1 })],
  ["a quantity above 2147483647", change({ petId: 1, quantity: 2147483648 })],
  ["a quantity that is a fraction", change({ petId: 1, quantity: 1.5 })],
  ["a quantity that is a string", change({ petId: 1, quantity: "4" })],
  ["a quantity that is null", change({ petId: 1, quantity: null })],
  ["a delta of 0", change({ petId: 1, delta: 0 })],
  ["a delta above 2147483647", change({ petId: 1, delta: 2147483648 })],
  ["a delta below -2147483647", change({ petId: 1, delta: -2147483648 })],
  ["a delta that is a fraction", change({ petId: 1, delta: -0.5 })],
  ["a delta that is a string", change({ petId: 1, delta: "-1" })],
  ["a delta that is true", change({ petId: 1, delta: true })],
  ["a negative ifQuantity", change({ petId: 1, delta: 1, ifQuantity: -1 })],
  ["an ifQuantity above 2147483647", change({ petId: 1, delta: 1, ifQuantity: 2147483648 })],
  ["an ifQuantity that is null", change({ petId: 1, quantity: 1, ifQuantity: null })],
  ["an empty ref", change({ petId: 1, delta: 1, ref: "" })],
  ["a ref of 129 characters", change({ petId: 1, delta: 1, ref: "r".repeat(129) })],
  ["a ref with a space", change({ petId: 1, delta: 1, ref: "sale 1" })],
  ["a ref with a tab", change({ petId: 1, delta: 1, ref: "sale\t1" })],
  ["a ref with DEL", change({ petId: 1, delta: 1, ref: "sale\u007f" })],
  ["a ref with a non-ASCII letter", change({ petId: 1, delta: 1, ref: "März-1" })],
  ["a ref with an emoji", change({ petId: 1, delta: 1, ref: "sale-🐕" })],
  ["a ref that is a number", change({ petId: 1, delta: 1, ref: 42 })],
  ["a ref that is null", change({ petId: 1, delta: 1, ref: null })],
  ["a count without asOf", change({ petId: 1, count: 4 })],
  ["a count without asOf, with a ref", change({ petId: 1, count: 4, ref: "c:s:1" })],
  ["asOf without count", change({ petId: 1, asOf: 3 })],
  ["asOf with a set", change({ petId: 1, quantity: 4, asOf: 3 })],
  ["asOf with a delta", change({ petId: 1, delta: -1, asOf: 3 })],
  ["a count with a quantity", change({ petId: 1, count: 4, quantity: 4, asOf: 3 })],
  ["a count with a delta", change({ petId: 1, count: 4, delta: 1, asOf: 3 })],
  ["a count with ifQuantity", change({ petId: 1, count: 4, asOf: 3, ifQuantity: 4 })],
  ["a count with ifQuantity, no asOf", change({ petId: 1, count: 4, ifQuantity: 4 })],
  ["a count with a delta, no asOf", change({ petId: 1, count: 4, delta: 1 })],
  ["a negative count", change({ petId: 1, count: -1, asOf: 3 })],
  ["a count above 2147483647", change({ petId: 1, count: 2147483648, asOf: 3 })],
  ["a count that is a fraction", change({ petId: 1, count: 1.5, asOf: 3 })],
  ["a count that is null", change({ petId: 1, count: null, asOf: 3 })],
  ["a negative asOf", change({ petId: 1, count: 4, asOf: -1 })],
  ["an asOf that is a fraction", change({ petId: 1, count: 4, asOf: 2.5 })],
  ["an asOf that is a string", change({ petId: 1, count: 4, asOf: "3" })],
  ["an asOf that is null", change({ petId: 1, count: 4, asOf: null })],
  // Past int64 by far: 2^63 itself is the number 2^63 - 1 rounds to, beyond what ajv tells apart.
  ["an asOf above int64", '{"changes":[{"petId":1,"count":4,"asOf":18446744073709551616}]}'],
  [
    "a count with a ref of 129 characters",
    change({ petId: 1, count: 4, asOf: 3, ref: "r".repeat(129) }),
  ],
  ["an unknown field of a change", change({ petId: 1, delta: 1, reason: "sale" })],
  ["a misspelt field of a change", change({ petId: 1, qty: 4 })],
  [
    "one bad change among good ones",
    JSON.stringify({
      changes: [
        { petId: 1, quantity: 4 },
        { petId: 2, delta: 0 },
        { petId: 3, delta: 1 },
      ],
    }),
  ],
];

/**
 * What the server writes for each kind of result (renderBatch, serializeResult): a set's or a
 * delta's has no count fields; a count's has all four (null but `counted` for `not_found`),
 * but a count that is a `duplicate` is answered as any duplicate is, without them.
 */
const base = { petId: 1n, previous: 3, quantity: 3, status: "available" } as const;
const RESULTS: [name: string, result: BatchChangeResult][] = [
  ["a set's", { ...base, outcome: "changed", quantity: 4 }],
  [
    "a delta's not_found",
    { petId: 9n, outcome: "not_found", previous: null, quantity: null, status: null },
  ],
  [
    "a count's changed",
    { ...base, outcome: "changed", quantity: 2, book: 4, since: -1, counted: 3, variance: -1 },
  ],
  [
    "a count's unchanged",
    { ...base, outcome: "unchanged", book: 3, since: 0, counted: 3, variance: 0 },
  ],
  [
    "a count's below_zero",
    { ...base, outcome: "below_zero", book: 5, since: -2, counted: 1, variance: -4 },
  ],
  [
    "a count's too_large",
    { ...base, outcome: "too_large", book: 0, since: 3, counted: 2147483647, variance: 2147483647 },
  ],
  [
    "a count's not_found",
    {
      petId: 9n,
      outcome: "not_found",
      previous: null,
      quantity: null,
      status: null,
      book: null,
      since: null,
      counted: 3,
      variance: null,
    },
  ],
  ["a count's duplicate", { ...base, outcome: "duplicate" }],
];

/** Every visible ASCII character, %x21-7E: 94 of them. */
function visibleAscii(): string {
  return String.fromCharCode(...Array.from({ length: 94 }, (_, index) => 0x21 + index));
}

describe("batchRequestSchema and readBatchRequest", () => {
  it.each(ACCEPTED)("both accept %s", (_name, body) => {
    expect(judge(body)).toEqual({ schema: true, reader: true });
  });

  it.each(REFUSED)("both refuse %s", (_name, body) => {
    expect(judge(body)).toEqual({ schema: false, reader: false });
  });

  it("agree on integers written as 4.0 or 1e2: both read their value, as PATCH does", () => {
    for (const body of [
      '{"changes":[{"petId":1,"quantity":4.0}]}',
      '{"changes":[{"petId":1e2,"delta":1}]}',
    ]) {
      expect(judge(body), body).toEqual({ schema: true, reader: true });
    }
    for (const body of [
      '{"changes":[{"petId":1,"quantity":4.5}]}',
      '{"changes":[{"petId":1,"quantity":4.000000000000001}]}',
    ]) {
      expect(judge(body), body).toEqual({ schema: false, reader: false });
    }
  });
});

describe("batchChangeResultSchema and what the server writes", () => {
  const response = ajv.compile(batchResponseSchema);
  const rejection = ajv.compile(batchRejectionSchema);

  it.each(RESULTS)("a 200 and a 409 with %s result conform", (_name, result) => {
    for (const rejected of [false, true]) {
      const rendered = renderBatch({ kind: "evaluated", results: [result], rejected });
      expect(rendered.status).toBe(rejected ? 409 : 200);
      const body: unknown = JSON.parse(rendered.body);
      const check = rejected ? rejection : response;
      expect(check(body), JSON.stringify(check.errors)).toBe(true);
    }
  });

  it("a result has all four count fields or none", () => {
    const result = ajv.compile(batchChangeResultSchema);
    const head = { petId: 1, outcome: "changed", previous: 3, quantity: 2, status: "sold" };
    const fields: [string, number][] = [
      ["book", 4],
      ["since", -1],
      ["counted", 3],
      ["variance", -1],
    ];
    expect(result({ ...head, ...Object.fromEntries(fields) })).toBe(true);
    for (const [name, value] of fields) {
      const three = Object.fromEntries(fields.filter(([other]) => other !== name));
      expect(result({ ...head, ...three }), `without ${name}`).toBe(false);
      expect(result({ ...head, [name]: value }), `${name} alone`).toBe(false);
    }
  });
});
