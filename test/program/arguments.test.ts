import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { parsePetId, readWholeNumber } from "../../src/api/limits.js";
import { UsageError } from "../../src/errors.js";
import {
  deltaArgument,
  petIdArgument,
  quantityArgument,
  wholeNumberOption,
} from "../../src/program/arguments.js";
import { HttpStubs } from "../support/http-stubs.js";
import { runFake } from "../commands/fake-deps.js";
import { MAX_ID } from "../support/ids.js";

describe("readWholeNumber: the one rule", () => {
  it.each([
    ["7", { ok: true, value: 7n }],
    ["0", { ok: true, value: 0n }],
    ["", { ok: false, problem: "empty" }],
    ["042", { ok: false, problem: "leading_zeros" }],
    ["00", { ok: false, problem: "leading_zeros" }],
    [" 42", { ok: false, problem: "not_whole" }],
    ["-1", { ok: false, problem: "not_whole" }],
    ["+1", { ok: false, problem: "not_whole" }],
    ["1.5", { ok: false, problem: "not_whole" }],
    ["1e3", { ok: false, problem: "not_whole" }],
    ["11", { ok: false, problem: "out_of_range" }],
  ])("reads %j in 0..10", (text, expected) => {
    expect(readWholeNumber(text, 0n, 10n)).toEqual(expected);
  });

  it("keeps the server's path petId strict: no whitespace, no leading zeros", () => {
    expect(parsePetId(String(MAX_ID))).toBe(MAX_ID);
    expect(parsePetId(" 42")).toBeUndefined();
    expect(parsePetId("042")).toBeUndefined();
    expect(parsePetId("0")).toBeUndefined();
    expect(parsePetId(String(MAX_ID + 1n))).toBeUndefined();
  });
});

/** The UsageError `parse` throws (the test fails when it throws nothing or something else). */
function usageErrorOf(parse: () => unknown): UsageError {
  try {
    parse();
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error("expected a UsageError, nothing was thrown");
}

describe("petIdArgument and quantityArgument", () => {
  it("refuse leading zeros saying why, as a usage error", () => {
    expect(() => petIdArgument("042")).toThrow(
      new UsageError('invalid petId "042": leading zeros are not allowed; write 42'),
    );
    expect(() => quantityArgument("007", 42n)).toThrow(
      new UsageError('invalid quantity "007": leading zeros are not allowed; write 7'),
    );
    expect(() => quantityArgument("00", 42n)).toThrow(
      'invalid quantity "00": leading zeros are not allowed; write 0',
    );
  });

  it.each([
    ["-1", "to take 1 from the count, use: petstore inventory adjust 42 -1"],
    ["-3", "to take 3 from the count, use: petstore inventory adjust 42 -3"],
    [" -12 ", "to take 12 from the count, use: petstore inventory adjust 42 -12"],
    ["+5", "to add 5 to the count, use: petstore inventory adjust 42 +5"],
    [
      "+2147483647",
      "to add 2147483647 to the count, use: petstore inventory adjust 42 +2147483647",
    ],
  ])("refuse the delta %j as a quantity, pointing to the adjust that makes it", (text, hint) => {
    const error = usageErrorOf(() => quantityArgument(text, 42n));
    expect(error.message).toBe(
      `invalid quantity "${text}": expected a whole number from 0 to 2147483647`,
    );
    expect(error.hint).toBe(hint);
  });

  it.each(["-0", "+0", "-007", "-1.5", "+-1", "-2147483648", "seven"])(
    "refuse %j as a quantity with no adjust hint, as adjust refuses it too",
    (text) => {
      expect(() => deltaArgument(text)).toThrow(UsageError);
      expect(usageErrorOf(() => quantityArgument(text, 42n)).hint).toBe(
        "a quantity is the new number in stock, a whole number such as 7: petstore inventory set 42 7",
      );
    },
  );

  it("ignore whitespace around the number, as the counts files do", () => {
    expect(petIdArgument(" 42")).toBe(42n);
    expect(petIdArgument("42\t")).toBe(42n);
    expect(quantityArgument(" 7 ", 42n)).toBe(7);
  });

  it.each([
    ["0", 'invalid petId "0": expected a whole number from 1 to 9223372036854775807'],
    ["", 'invalid petId "": expected a whole number from 1 to 9223372036854775807'],
    ["4 2", 'invalid petId "4 2": expected a whole number from 1 to 9223372036854775807'],
  ])("petId %j: %s, with a hint saying what a petId is", (text, message) => {
    const error = usageErrorOf(() => petIdArgument(text));
    expect(error.message).toBe(message);
    expect(error.hint).toBe(
      "a petId is a pet's number, as the petId column of petstore inventory list shows it (such as 42), not its name",
    );
  });
});

describe("wholeNumberOption", () => {
  const concurrency = wholeNumberOption("a whole number of requests", 1, 64);

  it("accepts the range, both ends included, and whitespace around", () => {
    expect(concurrency("1")).toBe(1);
    expect(concurrency("64")).toBe(64);
    expect(concurrency(" 8 ")).toBe(8);
    expect(wholeNumberOption("a port number", 0, 65535)("0")).toBe(0);
  });

  it.each(["0", "65", "two", "-1", "1.5", "", "1e1"])("refuses %j naming the range", (text) => {
    expect(() => concurrency(text)).toThrow(
      new InvalidArgumentError("expected a whole number of requests from 1 to 64."),
    );
  });

  it("refuses leading zeros saying why and what it expects", () => {
    expect(() => concurrency("08")).toThrow(
      new InvalidArgumentError(
        "leading zeros are not allowed; write 8 (a whole number of requests from 1 to 64).",
      ),
    );
  });

  it("keeps the big ranges exact", () => {
    const entries = wholeNumberOption("a whole number of entries", 0, Number.MAX_SAFE_INTEGER);
    expect(entries(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => entries("9007199254740992")).toThrow(
      "expected a whole number of entries from 0 to 9007199254740991.",
    );
  });
});

describe("the rule on the command line", () => {
  it.each([
    [["--timeout", "0100", "inventory", "list"], "argument '0100' is invalid. leading zeros"],
    [["--retries", "11", "inventory", "list"], "expected a whole number of retries from 0 to 10."],
    [["serve", "--port", "65536"], "expected a port number from 0 to 65535."],
    [["serve", "--port", "04010"], "leading zeros are not allowed; write 4010 (a port number"],
    [
      ["serve", "--rate-limit", "1000000000"],
      "expected a whole number of requests per minute from 0 to 999999999.",
    ],
    [["inventory", "apply", "--max-changes", "-1", "c.csv"], "expected a whole number of entries"],
  ])("%j is exit 2: %s", async (argv, message) => {
    const stubs = new HttpStubs();
    const result = await runFake(argv, { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(stubs.calls()).toEqual([]);
  });

  it.each([
    [
      ["inventory", "get", "abc"],
      'error: invalid petId "abc": expected a whole number from 1 to 9223372036854775807\n' +
        "hint: a petId is a pet's number, as the petId column of petstore inventory list shows it (such as 42), not its name\n",
    ],
    [
      ["pets", "get", "9223372036854775808"],
      'error: invalid petId "9223372036854775808": expected a whole number from 1 to 9223372036854775807\n' +
        "hint: a petId is a pet's number, as the petId column of petstore inventory list shows it (such as 42), not its name\n",
    ],
    [
      ["inventory", "set", "42", "99999999999"],
      'error: invalid quantity "99999999999": expected a whole number from 0 to 2147483647\n' +
        "hint: a quantity is the new number in stock, at most 2147483647 (2^31 - 1, the largest the API stores)\n",
    ],
    [
      ["inventory", "set", "42", "1.5"],
      'error: invalid quantity "1.5": expected a whole number from 0 to 2147483647\n' +
        "hint: a quantity is the new number in stock, a whole number such as 7: petstore inventory set 42 7\n",
    ],
  ])("%j is exit 2 with a hint saying what is valid, and sends nothing", async (argv, stderr) => {
    const stubs = new HttpStubs();
    const result = await runFake(argv, { stubs });
    expect(result).toMatchObject({ code: 2, stdout: "", stderr });
    expect(stubs.calls()).toEqual([]);
  });

  it("inventory set 042 1 is exit 2 saying why, and sends nothing", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "set", "042", "1"], { stubs });
    expect(result).toMatchObject({
      code: 2,
      stdout: "",
      stderr: 'error: invalid petId "042": leading zeros are not allowed; write 42\n',
    });
    expect(stubs.calls()).toEqual([]);
  });
});

describe("deltaArgument", () => {
  it.each([
    ["+1", 1],
    ["-1", -1],
    [" -12 ", -12],
    ["+2147483647", 2147483647],
    ["-2147483647", -2147483647],
  ])("reads %j as %d", (text, delta) => {
    expect(deltaArgument(text)).toBe(delta);
  });

  it.each([
    ["5", 'invalid delta "5": expected +N to add or -N to remove'],
    ["+0", 'invalid delta "+0": a delta of 0 changes nothing'],
    ["-007", 'invalid delta "-007": leading zeros are not allowed; write -7'],
    ["+-1", 'invalid delta "+-1": expected +N'],
    ["", 'invalid delta "": expected +N'],
  ])("refuses %j as a usage error", (text, message) => {
    expect(() => deltaArgument(text)).toThrow(UsageError);
    expect(() => deltaArgument(text)).toThrow(message);
  });
});
