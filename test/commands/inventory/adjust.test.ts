/**
 * `inventory adjust` on HTTP stubs: the read → conditional write rounds, the keys each round
 * sends, giving up, refusing a result out of range, and parsing `-1` without `--`.
 */
import { describe, expect, it } from "vitest";
import { backoffPause } from "../../../src/api/backoff.js";
import { ADJUST_BACKOFF } from "../../../src/commands/inventory/adjust.js";
import { fakeKey, HttpStubs, json, runFake } from "../fake-deps.js";

const PATH = "/v1/inventory/42";
const PRECONDITION_FAILED =
  '{"code":"precondition_failed","message":"the entry does not match If-Match","status":412}';

function entry(quantity: number): string {
  return `{"petId":42,"quantity":${quantity},"status":"available"}`;
}

function tagged(quantity: number) {
  return { headers: { "content-type": "application/json", etag: `"${quantity}"` } };
}

/** Replies, in order, to the GETs and PATCHes of pet 42. */
function serving(
  steps: readonly ({ get: number } | { patch: number } | { conflict: number } | { fail: number })[],
): HttpStubs {
  const stubs = new HttpStubs();
  for (const step of steps) {
    if ("get" in step) {
      stubs.on("GET", PATH).reply(200, entry(step.get), tagged(step.get));
    } else if ("patch" in step) {
      stubs.on("PATCH", PATH).reply(200, entry(step.patch), tagged(step.patch));
    } else if ("conflict" in step) {
      stubs.on("PATCH", PATH).reply(412, PRECONDITION_FAILED, tagged(step.conflict));
    } else {
      stubs
        .on("PATCH", PATH)
        .reply(step.fail, '{"code":"unavailable","message":"busy","status":503}', json);
    }
  }
  return stubs;
}

/** Each PATCH as body, If-Match and Idempotency-Key. */
function patches(stubs: HttpStubs) {
  return stubs.requests
    .filter((call) => call.method === "PATCH")
    .map((call) => {
      const headers = call.headers;
      return {
        body: call.body,
        ifMatch: headers["if-match"],
        key: headers["idempotency-key"],
      };
    });
}

describe("inventory adjust", () => {
  it("reads the entry, writes quantity + delta if it still holds what was read, prints it", async () => {
    const stubs = serving([{ get: 5 }, { patch: 4 }]);
    const result = await runFake(["inventory", "adjust", "42", "-1"], { stubs });
    expect(result).toMatchObject({ code: 0, stdout: "42\t4\tavailable\n", stderr: "" });
    expect(stubs.calls()).toEqual(["GET /v1/inventory/42", "PATCH /v1/inventory/42"]);
    expect(patches(stubs)).toEqual([{ body: '{"quantity":4}', ifMatch: '"5"', key: fakeKey(1) }]);
  });

  it.each([
    [["inventory", "adjust", "42", "-1", "--json"]],
    [["inventory", "adjust", "--json", "42", "-1"]],
    [["inventory", "adjust", "42", "--json", "-1"]],
  ])("parses a negative delta without -- in %j", async (argv) => {
    const stubs = serving([{ get: 5 }, { patch: 4 }]);
    const result = await runFake(argv, { stubs });
    expect(result).toMatchObject({
      code: 0,
      stdout: '{\n  "petId": 42,\n  "quantity": 4,\n  "status": "available"\n}\n',
      stderr: "",
    });
  });

  it("adds with +N and prints a table on a terminal", async () => {
    const stubs = serving([{ get: 5 }, { patch: 17 }]);
    const result = await runFake(["--no-color", "inventory", "adjust", "42", "+12"], {
      stubs,
      isTTY: true,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/│ +42 │ +17 │ available │/);
    expect(patches(stubs)).toEqual([{ body: '{"quantity":17}', ifMatch: '"5"', key: fakeKey(1) }]);
  });

  it("uses the quantity as the precondition when the GET sends no ETag", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", PATH).reply(200, entry(5), json);
    stubs.on("PATCH", PATH).reply(200, entry(4), json);
    const result = await runFake(["inventory", "adjust", "42", "-1"], { stubs });
    expect(result.code).toBe(0);
    expect(patches(stubs)).toEqual([{ body: '{"quantity":4}', ifMatch: '"5"', key: fakeKey(1) }]);
  });

  it("on a 412 waits, reads again and writes a new change with a new key", async () => {
    const stubs = serving([{ get: 5 }, { conflict: 3 }, { get: 3 }, { patch: 2 }]);
    const result = await runFake(["inventory", "adjust", "42", "-1"], { stubs });
    expect(result).toMatchObject({ code: 0, stdout: "42\t2\tavailable\n", stderr: "" });
    expect(patches(stubs)).toEqual([
      { body: '{"quantity":4}', ifMatch: '"5"', key: fakeKey(1) },
      { body: '{"quantity":2}', ifMatch: '"3"', key: fakeKey(2) },
    ]);
    expect(result.sleeps).toEqual([backoffPause(ADJUST_BACKOFF, 1, () => 0.5)]);
  });

  it("resends the same key when a write is retried after a 503 (one change, one key)", async () => {
    const stubs = serving([{ get: 5 }, { fail: 503 }, { patch: 4 }]);
    const result = await runFake(["inventory", "adjust", "42", "-1"], { stubs });
    expect(result.code).toBe(0);
    expect(patches(stubs)).toEqual([
      { body: '{"quantity":4}', ifMatch: '"5"', key: fakeKey(1) },
      { body: '{"quantity":4}', ifMatch: '"5"', key: fakeKey(1) },
    ]);
    // The transport's backoff (500 ms step, equal jitter), not adjust's.
    expect(result.sleeps).toEqual([375]);
  });

  it("gives up after --attempts rounds with exit 8, having changed nothing", async () => {
    const stubs = serving([
      { get: 5 },
      { conflict: 6 },
      { get: 6 },
      { conflict: 7 },
      { get: 7 },
      { conflict: 8 },
    ]);
    const result = await runFake(["inventory", "adjust", "42", "-1", "--attempts", "3"], {
      stubs,
    });
    expect(result).toMatchObject({
      code: 8,
      stdout: "",
      stderr:
        "error: gave up adjusting pet 42 by -1: it changed between each of 3 reads and writes (it holds 8 now); nothing was changed\n" +
        "hint: others are changing it right now: run the command again, or raise --attempts\n",
    });
    expect(patches(stubs).map((patch) => patch.key)).toEqual([fakeKey(1), fakeKey(2), fakeKey(3)]);
    expect(result.sleeps).toEqual([
      backoffPause(ADJUST_BACKOFF, 1, () => 0.5),
      backoffPause(ADJUST_BACKOFF, 2, () => 0.5),
    ]);
  });

  it("tries 10 rounds by default", async () => {
    const steps = Array.from({ length: 10 }, (_, i) => [{ get: 5 + i }, { conflict: 6 + i }]);
    const stubs = serving(steps.flat());
    const result = await runFake(["inventory", "adjust", "42", "+1"], { stubs });
    expect(result.code).toBe(8);
    expect(result.stderr).toContain("each of 10 reads and writes (it holds 15 now)");
    expect(result.sleeps).toHaveLength(9);
  });

  it("refuses a result below 0 with exit 6 and sends no write", async () => {
    const stubs = serving([{ get: 0 }]);
    const result = await runFake(["inventory", "adjust", "42", "-1"], { stubs });
    expect(result).toMatchObject({
      code: 6,
      stdout: "",
      stderr:
        "error: pet 42 holds 0: -1 would make it -1, below 0; nothing was changed\n" +
        "hint: a quantity is a whole number from 0 to 2147483647; petstore inventory get 42 shows the entry\n",
    });
    expect(stubs.calls()).toEqual(["GET /v1/inventory/42"]);
  });

  it("refuses a result above 2147483647 with exit 6 and sends no write", async () => {
    const stubs = serving([{ get: 2147483000 }]);
    const result = await runFake(["inventory", "adjust", "42", "+1000"], { stubs });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      "error: pet 42 holds 2147483000: +1000 would make it 2147484000, above 2147483647; nothing was changed\n",
    );
    expect(stubs.calls()).toEqual(["GET /v1/inventory/42"]);
  });

  it("maps a 404 of the read to exit 5", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", PATH)
      .reply(404, '{"code":"pet_not_found","message":"no pet with id 42","status":404}', json);
    const result = await runFake(["inventory", "adjust", "42", "-1"], { stubs });
    expect(result).toMatchObject({
      code: 5,
      stderr:
        "error: no pet with id 42 (pet_not_found, HTTP 404)\n" +
        "hint: check the petId; petstore inventory list shows the known ones\n",
    });
  });

  it.each([
    [
      "5",
      'error: invalid delta "5": expected +N to add or -N to remove, N a whole number from 1 to 2147483647\n' +
        "hint: write +5 or -5; to set the quantity to 5, use petstore inventory set\n",
    ],
    [
      "0",
      'error: invalid delta "0": a delta of 0 changes nothing\n' +
        "hint: petstore inventory get shows the entry\n",
    ],
    [
      "+0",
      'error: invalid delta "+0": a delta of 0 changes nothing\n' +
        "hint: petstore inventory get shows the entry\n",
    ],
    [
      "-0",
      'error: invalid delta "-0": a delta of 0 changes nothing\n' +
        "hint: petstore inventory get shows the entry\n",
    ],
    ["+05", 'error: invalid delta "+05": leading zeros are not allowed; write +5\n'],
    [
      "-2147483648",
      'error: invalid delta "-2147483648": expected +N to add or -N to remove, N a whole number from 1 to 2147483647\n',
    ],
    [
      "+1.5",
      'error: invalid delta "+1.5": expected +N to add or -N to remove, N a whole number from 1 to 2147483647\n',
    ],
    [
      "+ 1",
      'error: invalid delta "+ 1": expected +N to add or -N to remove, N a whole number from 1 to 2147483647\n',
    ],
    [
      "many",
      'error: invalid delta "many": expected +N to add or -N to remove, N a whole number from 1 to 2147483647\n',
    ],
  ])("rejects delta %j with exit 2 before any request", async (delta, stderr) => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "adjust", "42", delta], { stubs });
    expect(result).toMatchObject({ code: 2, stdout: "", stderr });
    expect(stubs.calls()).toEqual([]);
  });

  it("treats a word that is not a number as an unknown option (exit 2)", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "adjust", "42", "-x"], { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: unknown option '-x'");
    expect(stubs.calls()).toEqual([]);
  });

  it.each(["0", "101", "x"])("rejects --attempts %s with exit 2", async (value) => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "adjust", "42", "-1", "--attempts", value], {
      stubs,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: option '--attempts <n>' argument '${value}'`);
    expect(stubs.calls()).toEqual([]);
  });
});

describe("ADJUST_BACKOFF", () => {
  it("doubles from 25 ms up to 1 s, half of it random", () => {
    const pause = (round: number, random: () => number) =>
      backoffPause(ADJUST_BACKOFF, round, random);
    expect([1, 2, 3, 6, 7, 10].map((round) => pause(round, () => 0))).toEqual([
      13, 25, 50, 400, 500, 500,
    ]);
    expect([1, 2, 7, 10].map((round) => pause(round, () => 0.999999))).toEqual([
      25, 50, 1000, 1000,
    ]);
  });
});
