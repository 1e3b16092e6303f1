import { describe, expect, it } from "vitest";
import { BASE_URL, fakeKey, HttpStubs, json, runFake } from "../fake-deps.js";
import { MAX_ID_TEXT as MAX_ID } from "../../support/ids.js";

function patching(petId: string, reply: { status: number; body: string }) {
  const stubs = new HttpStubs();
  stubs.on("PATCH", `/v1/inventory/${petId}`).reply(reply.status, reply.body, json);
  return stubs;
}

describe("inventory set", () => {
  it("PATCHes {quantity} as JSON and prints the updated entry as one line when piped", async () => {
    const stubs = patching("42", {
      status: 200,
      body: '{"petId":42,"quantity":7,"status":"available"}',
    });
    const result = await runFake(["inventory", "set", "42", "7"], { stubs });
    expect(result).toMatchObject({ code: 0, stdout: "42\t7\tavailable\n", stderr: "" });
    const call = stubs.requests.at(-1);
    expect(call?.method).toBe("PATCH");
    expect(call?.body).toBe('{"quantity":7}');
    expect(call?.headers).toMatchObject({ "content-type": "application/json" });
  });

  it("prints a one-row table without totals on a terminal", async () => {
    const stubs = patching("42", {
      status: 200,
      body: '{"petId":42,"quantity":7,"status":"available"}',
    });
    const result = await runFake(["--no-color", "inventory", "set", "42", "7"], {
      stubs,
      isTTY: true,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/│ +42 │ +7 │ available │/);
    expect(result.stdout).not.toContain("in stock");
  });

  it("round-trips the largest int64 petId exactly with --json", async () => {
    const stubs = patching(MAX_ID, {
      status: 200,
      body: `{"petId":${MAX_ID},"quantity":2147483647,"status":"sold"}`,
    });
    const result = await runFake(["inventory", "set", MAX_ID, "2147483647", "--json"], { stubs });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `{\n  "petId": ${MAX_ID},\n  "quantity": 2147483647,\n  "status": "sold"\n}\n`,
    );
    expect(stubs.calls()).toEqual([`PATCH /v1/inventory/${MAX_ID}`]);
  });

  it.each([
    ["abc", "1", 'invalid petId "abc"'],
    ["0", "1", 'invalid petId "0"'],
    ["-5", "1", 'invalid petId "-5"'],
    ["1.5", "1", 'invalid petId "1.5"'],
    ["9223372036854775808", "1", 'invalid petId "9223372036854775808"'],
    ["42", "-1", 'invalid quantity "-1"'],
    ["42", "2147483648", 'invalid quantity "2147483648"'],
    ["42", "1e3", 'invalid quantity "1e3"'],
    ["42", "2.5", 'invalid quantity "2.5"'],
    ["42", "seven", 'invalid quantity "seven"'],
  ])(
    "rejects set %s %s locally with exit 2 and sends nothing",
    async (petId, quantity, message) => {
      const stubs = new HttpStubs();
      const result = await runFake(["inventory", "set", petId, quantity], { stubs });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(`^error: ${message.replace(/[.]/g, "\\.")}: expected a whole number from`),
      );
      expect(result.stdout).toBe("");
      expect(stubs.calls()).toEqual([]);
    },
  );

  it.each([
    [["inventory", "set", "42", "-1"], "-1", "to take 1 from the count", "42 -1"],
    [["inventory", "set", "42", "-3"], "-3", "to take 3 from the count", "42 -3"],
    [["inventory", "set", "7", "+5"], "+5", "to add 5 to the count", "7 +5"],
    // Read as arguments without --, as adjust's delta is, wherever the options stand.
    [["inventory", "set", "--json", "42", "-1"], "-1", "to take 1 from the count", "42 -1"],
    [
      ["inventory", "set", "42", "-1", "--reason", "sold"],
      "-1",
      "to take 1 from the count",
      "42 -1",
    ],
    [["inventory", "set", "42", "--", "-1"], "-1", "to take 1 from the count", "42 -1"],
  ])(
    "refuses the change in %j with exit 2, naming the adjust that makes it, and sends nothing",
    async (argv, quantity, change, adjust) => {
      const stubs = new HttpStubs();
      const result = await runFake(argv, { stubs });
      expect(result).toMatchObject({
        code: 2,
        stdout: "",
        stderr:
          `error: invalid quantity "${quantity}": expected a whole number from 0 to 2147483647\n` +
          `hint: ${change}, use: petstore inventory adjust ${adjust}\n`,
      });
      expect(stubs.calls()).toEqual([]);
    },
  );

  it.each(["-0", "+0", "-1.5"])(
    "refuses set 42 %s with exit 2 and no adjust hint, as adjust refuses it too",
    async (quantity) => {
      const result = await runFake(["inventory", "set", "42", quantity], {
        stubs: new HttpStubs(),
      });
      expect(result).toMatchObject({
        code: 2,
        stdout: "",
        stderr:
          `error: invalid quantity "${quantity}": expected a whole number from 0 to 2147483647\n` +
          "hint: a quantity is the new number in stock, a whole number such as 7: petstore inventory set 42 7\n",
      });
    },
  );

  it("validates the arguments before asking for a key", async () => {
    const result = await runFake(["inventory", "set", "x", "1"], { env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('invalid petId "x"');
  });

  it("needs both arguments (exit 2)", async () => {
    const result = await runFake(["inventory", "set", "42"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: missing required argument 'quantity'");
    expect(result.stderr).toContain("hint: see petstore inventory set --help");
  });

  it("maps 404 to exit 5 with the server's code and a hint", async () => {
    const stubs = patching("99", {
      status: 404,
      body: '{"code":"pet_not_found","message":"no pet with id 99","status":404}',
    });
    const result = await runFake(["inventory", "set", "99", "1"], { stubs });
    expect(result.code).toBe(5);
    expect(result.stderr).toBe(
      "error: no pet with id 99 (pet_not_found, HTTP 404)\n" +
        "hint: check the petId; petstore inventory list shows the known ones\n",
    );
    expect(result.stdout).toBe("");
  });

  it("points at the base URL when the route itself is unknown", async () => {
    const stubs = patching("99", {
      status: 404,
      body: '{"code":"not_found","message":"no route PATCH /inventory/99","status":404}',
    });
    const result = await runFake(["inventory", "set", "99", "1"], { stubs });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain(
      `hint: the server has no such route: check that the base URL ${BASE_URL} (from PETSTORE_BASE_URL) is right and ends in /v1`,
    );
  });

  it("maps 400 to exit 6 with the server's message", async () => {
    const stubs = patching("42", {
      status: 400,
      body: '{"code":"invalid_body","message":"quantity must be at most 1000","status":400}',
    });
    const result = await runFake(["inventory", "set", "42", "5000"], { stubs });
    expect(result.code).toBe(6);
    expect(result.stderr).toBe(
      "error: quantity must be at most 1000 (invalid_body, HTTP 400)\n" +
        "hint: check the petId and quantity: the server's message above says what it rejected\n",
    );
  });

  it("maps 401 to exit 4 naming the variable that holds the key", async () => {
    const stubs = patching("42", {
      status: 401,
      body: '{"code":"unauthorized","message":"invalid API key","status":401}',
    });
    const result = await runFake(["inventory", "set", "42", "1"], { stubs });
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      "error: invalid API key (unauthorized, HTTP 401)\n" +
        `hint: check the API key for ${BASE_URL} (from PETSTORE_BASE_URL): it comes from PETSTORE_API_KEY\n`,
    );
  });

  it("does not retry a 4xx", async () => {
    const stubs = patching("42", {
      status: 400,
      body: '{"code":"invalid_body","message":"no","status":400}',
    });
    const result = await runFake(["inventory", "set", "42", "1"], { stubs });
    expect(result.sleeps).toEqual([]);
    expect(stubs.calls()).toHaveLength(1);
  });
});

const PRECONDITION_FAILED =
  '{"code":"precondition_failed","message":"the entry does not match If-Match","status":412}';

function headersOf(stubs: HttpStubs, index: number) {
  return stubs.requests[index]?.headers;
}

describe("inventory set --if-quantity", () => {
  it('sends If-Match: "N" and an Idempotency-Key, and prints the entry on 200', async () => {
    const stubs = patching("42", {
      status: 200,
      body: '{"petId":42,"quantity":6,"status":"available"}',
    });
    const result = await runFake(["inventory", "set", "42", "6", "--if-quantity", "7"], {
      stubs,
    });
    expect(result).toMatchObject({ code: 0, stdout: "42\t6\tavailable\n", stderr: "" });
    expect(headersOf(stubs, 0)).toMatchObject({
      "if-match": '"7"',
      "idempotency-key": fakeKey(1),
    });
  });

  it("without it sends no If-Match, but still an Idempotency-Key", async () => {
    const stubs = patching("42", {
      status: 200,
      body: '{"petId":42,"quantity":6,"status":"available"}',
    });
    const result = await runFake(["inventory", "set", "42", "6"], { stubs });
    expect(result.code).toBe(0);
    expect(headersOf(stubs, 0)).not.toHaveProperty("if-match");
    expect(headersOf(stubs, 0)).toMatchObject({ "idempotency-key": fakeKey(1) });
  });

  it("exits 8 on a 412, naming the quantity from the response's ETag, and changes nothing", async () => {
    const stubs = new HttpStubs();
    stubs.on("PATCH", "/v1/inventory/42").reply(412, PRECONDITION_FAILED, {
      headers: { "content-type": "application/json", etag: '"3"' },
    });
    const result = await runFake(["inventory", "set", "42", "6", "--if-quantity", "7"], {
      stubs,
    });
    expect(result).toMatchObject({
      code: 8,
      stdout: "",
      stderr:
        "error: pet 42 no longer holds 7: it holds 3 now; nothing was changed\n" +
        "hint: read it again (petstore inventory get 42) and decide, or use petstore inventory adjust 42 +N|-N to change it relative to whatever it holds\n",
    });
    expect(stubs.calls()).toEqual(["PATCH /v1/inventory/42"]);
    expect(result.sleeps).toEqual([]);
  });

  it("reads the entry once more when the 412 carries no usable ETag", async () => {
    const stubs = new HttpStubs();
    stubs.on("PATCH", "/v1/inventory/42").reply(412, PRECONDITION_FAILED, json);
    stubs
      .on("GET", "/v1/inventory/42")
      .reply(200, '{"petId":42,"quantity":9,"status":"available"}', json);
    const result = await runFake(["inventory", "set", "42", "6", "--if-quantity", "7"], {
      stubs,
    });
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(
      "error: pet 42 no longer holds 7: it holds 9 now; nothing was changed\n",
    );
    expect(stubs.calls()).toEqual(["PATCH /v1/inventory/42", "GET /v1/inventory/42"]);
  });

  it("still exits 8 when that read fails too, without a number", async () => {
    const stubs = new HttpStubs();
    stubs.on("PATCH", "/v1/inventory/42").reply(412, PRECONDITION_FAILED, json);
    stubs
      .on("GET", "/v1/inventory/42")
      .reply(404, '{"code":"pet_not_found","message":"gone","status":404}', json);
    const result = await runFake(["inventory", "set", "42", "6", "--if-quantity", "7"], {
      stubs,
    });
    expect(result.code).toBe(8);
    expect(result.stderr).toContain(
      "error: pet 42 no longer holds 7: it changed; nothing was changed\n",
    );
  });

  it.each(["-1", "2147483648", "1.5", "07", "x"])(
    "rejects --if-quantity %s with exit 2 and sends nothing",
    async (value) => {
      const stubs = new HttpStubs();
      const result = await runFake(["inventory", "set", "42", "6", "--if-quantity", value], {
        stubs,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`error: option '--if-quantity <n>' argument '${value}'`);
      expect(stubs.calls()).toEqual([]);
    },
  );
});
