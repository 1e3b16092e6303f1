import { parse } from "lossless-json";
import { describe, expect, it } from "vitest";
import {
  decodeBatchResponse,
  decodeErrorBody,
  decodeInventoryList,
  decodeInventoryQuantities,
  decodeOrderList,
  decodePet,
  parseJson,
} from "../../src/client/decode.js";

describe("decodeInventoryList", () => {
  it("keeps int64 petIds exact as bigint", () => {
    const items = decodeInventoryList(
      parseJson('[{"petId":9223372036854775807,"quantity":2147483647,"status":"sold"}]'),
    );
    expect(items).toEqual([{ petId: 9223372036854775807n, quantity: 2147483647, status: "sold" }]);
  });

  it.each([
    ['{"petId":1}', "the body is not an array"],
    ["[1]", "[0] is not an object"],
    ['[{"quantity":1,"status":"sold"}]', "[0].petId is not an integer"],
    ['[{"petId":1.5,"quantity":1,"status":"sold"}]', "[0].petId is not an integer"],
    ['[{"petId":1e3,"quantity":1,"status":"sold"}]', "[0].petId is not an integer"],
    ['[{"petId":9223372036854775808,"quantity":1,"status":"sold"}]', "[0].petId is not an int64"],
    ['[{"petId":1,"quantity":"5","status":"sold"}]', "[0].quantity is not an integer"],
    ['[{"petId":1,"quantity":1e30,"status":"sold"}]', "[0].quantity is not an integer"],
    [
      '[{"petId":1,"quantity":1,"status":"gone"}]',
      "[0].status is not one of available, pending, sold",
    ],
  ])("rejects %s", (text, message) => {
    expect(() => decodeInventoryList(parseJson(text))).toThrow(message);
  });

  it("rejects text that is not JSON", () => {
    expect(() => parseJson("<html>")).toThrow("the body is not valid JSON");
    expect(() => parseJson('[{"petId":1,')).toThrow("the body is not valid JSON");
  });

  it.each([
    ['[{"petId":123456789012345,"quantity":0,"status":"sold"}]', 123456789012345n],
    ['[{"petId":1234567890123456,"quantity":0,"status":"sold"}]', 1234567890123456n],
    ['[{"petId":9007199254740993,"quantity":1,"status":"sold"}]', 9007199254740993n],
    ['[{"petId":42,"quantity":3,"status":"sold","note":"v1.2e5"}]', 42n],
  ])("decodes %s exactly, as the lossless parser does", (text, petId) => {
    const items = decodeInventoryList(parseJson(text));
    expect(items[0]?.petId).toBe(petId);
    expect(items).toEqual(decodeInventoryList(parse(text)));
  });
});

describe("decodePet", () => {
  it("reads the classic Petstore shape", () => {
    const pet = decodePet(
      parseJson(
        '{"id":7,"name":"Rex","status":"pending","category":{"id":1,"name":"Dogs"},"photoUrls":["u"],"tags":[{"id":2,"name":"t"}]}',
      ),
    );
    expect(pet).toEqual({
      id: 7n,
      name: "Rex",
      status: "pending",
      category: { id: 1n, name: "Dogs" },
      photoUrls: ["u"],
      tags: [{ id: 2n, name: "t" }],
    });
  });

  it("defaults missing photoUrls and tags to empty lists", () => {
    expect(decodePet(parseJson('{"id":7,"name":"Rex","status":"sold"}'))).toEqual({
      id: 7n,
      name: "Rex",
      status: "sold",
      photoUrls: [],
      tags: [],
    });
  });

  it("rejects a tag without a name", () => {
    expect(() =>
      decodePet(parseJson('{"id":7,"name":"Rex","status":"sold","tags":[{"id":1}]}')),
    ).toThrow(".tags[0].name is not a string");
  });
});

describe("decodeOrderList", () => {
  it("rejects a non-boolean complete", () => {
    expect(() =>
      decodeOrderList(
        parseJson(
          '[{"id":1,"petId":2,"quantity":1,"shipDate":"2025-01-01T00:00:00Z","status":"placed","complete":"no"}]',
        ),
      ),
    ).toThrow("[0].complete is not a boolean");
  });
});

describe("decodeErrorBody", () => {
  it("reads code and message", () => {
    expect(decodeErrorBody('{"code":"x","message":"y","status":400}')).toEqual({
      code: "x",
      message: "y",
    });
  });

  it.each([["not json"], ["[]"], ['{"status":500}'], [""]])("gives up on %j", (text) => {
    expect(decodeErrorBody(text)).toBeUndefined();
  });
});

describe("decodeInventoryQuantities", () => {
  it("reads each pet's quantity by its exact petId", () => {
    const quantities = decodeInventoryQuantities(
      parseJson(
        '[{"petId":9223372036854775807,"quantity":1,"status":"sold"},{"petId":9223372036854775806,"quantity":2,"status":"pending"},{"petId":3,"quantity":0,"status":"available"}]',
      ),
    );
    expect([...quantities]).toEqual([
      [9223372036854775807n, 1],
      [9223372036854775806n, 2],
      [3n, 0],
    ]);
  });

  it.each([
    ['{"petId":1}', "the body is not an array"],
    ["[1]", "[0] is not an object"],
    ['[{"quantity":1,"status":"sold"}]', "[0].petId is not an integer"],
    ['[{"petId":1.5,"quantity":1,"status":"sold"}]', "[0].petId is not an integer"],
    ['[{"petId":9223372036854775808,"quantity":1,"status":"sold"}]', "[0].petId is not an int64"],
    ['[{"petId":1,"quantity":"5","status":"sold"}]', "[0].quantity is not an integer"],
    ['[{"petId":1,"quantity":1,"status":"gone"}]', "[0].status is not one of available"],
  ])("rejects %s as decodeInventoryList does", (text, message) => {
    expect(() => decodeInventoryQuantities(parseJson(text))).toThrow(message);
    expect(() => decodeInventoryList(parseJson(text))).toThrow(message);
  });
});

describe("decodeBatchResponse", () => {
  it("reads the counts and every result, int64 ids exact and nulls for an unknown pet", () => {
    expect(
      decodeBatchResponse(
        parseJson(
          '{"changed":1,"unchanged":1,"failed":1,"results":[{"petId":9223372036854775807,"outcome":"changed","previous":3,"quantity":5,"status":"sold"},{"petId":2,"outcome":"duplicate","previous":4,"quantity":4,"status":"pending"},{"petId":3,"outcome":"not_found","previous":null,"quantity":null,"status":null}]}',
        ),
      ),
    ).toEqual({
      changed: 1,
      unchanged: 1,
      failed: 1,
      results: [
        {
          petId: 9223372036854775807n,
          outcome: "changed",
          previous: 3,
          quantity: 5,
          status: "sold",
        },
        { petId: 2n, outcome: "duplicate", previous: 4, quantity: 4, status: "pending" },
        { petId: 3n, outcome: "not_found", previous: null, quantity: null, status: null },
      ],
    });
  });

  it.each([
    ['{"changed":0,"unchanged":0,"failed":0}', ".results is not an array"],
    ['{"changed":0,"unchanged":0,"results":[]}', ".failed is not an integer"],
    [
      '{"changed":0,"unchanged":0,"failed":0,"results":[{"petId":1,"outcome":"gone","previous":1,"quantity":1,"status":"sold"}]}',
      ".results[0].outcome is not one of changed, unchanged, duplicate, conflict, not_found, below_zero, too_large",
    ],
    [
      '{"changed":0,"unchanged":0,"failed":0,"results":[{"petId":1,"outcome":"changed","previous":"1","quantity":1,"status":"sold"}]}',
      ".results[0].previous is not an integer",
    ],
    [
      '{"changed":0,"unchanged":0,"failed":0,"results":[{"petId":1,"outcome":"changed","previous":1,"quantity":1,"status":"lost"}]}',
      ".results[0].status is not null or one of available, pending, sold",
    ],
  ])("rejects %s", (text, message) => {
    expect(() => decodeBatchResponse(parseJson(text))).toThrow(message);
  });
});
