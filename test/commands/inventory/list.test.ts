import { describe, expect, it } from "vitest";
import { BASE_URL, CONFIGURED_ENV, HttpStubs, json, KEY, runFake } from "../fake-deps.js";
import { MAX_ID_TEXT as MAX_ID } from "../../support/ids.js";

const INVENTORY = `[{"petId":${MAX_ID},"quantity":1,"status":"sold"},{"petId":7,"quantity":0,"status":"pending"},{"petId":2,"quantity":5,"status":"available"}]`;

function serving(body: string, status = 200) {
  const stubs = new HttpStubs();
  stubs.on("GET", "/v1/inventory").reply(status, body, json);
  return stubs;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/;

describe("inventory list output", () => {
  it("prints tab-separated lines sorted by petId, without colour or totals, when piped", async () => {
    const result = await runFake(["inventory", "list"], { stubs: serving(INVENTORY) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`2\t5\tavailable\n7\t0\tpending\n${MAX_ID}\t1\tsold\n`);
    expect(result.stderr).toBe("");
  });

  it("prints a coloured table with a totals line on a terminal", async () => {
    const result = await runFake(["inventory", "list"], { stubs: serving(INVENTORY), isTTY: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(ANSI);
    expect(result.stdout).toContain(MAX_ID);
    expect(result.stdout).toContain("┌");
    expect(result.stdout).toContain("3 pets, 6 in stock (available 5, pending 0, sold 1)");
    // The totals line ends the output: no style opened and closed again after its line end.
    expect(result.stdout.endsWith("sold 1)\u001b[22m\n")).toBe(true);
  });

  it.each([
    ["--no-color", ["--no-color"], {}],
    ["NO_COLOR", [], { NO_COLOR: "1" }],
    ["FORCE_COLOR=0", [], { FORCE_COLOR: "0" }],
    ["TERM=dumb", [], { TERM: "dumb" }],
  ])("leaves the table uncoloured with %s", async (_name, flags, env) => {
    const result = await runFake(["inventory", "list", ...flags], {
      stubs: serving(INVENTORY),
      isTTY: true,
      env: { ...CONFIGURED_ENV, ...env },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/│ +petId │ quantity │ status +│/);
    expect(result.stdout).not.toMatch(ANSI);
  });

  it("prints the int64 petId exactly with --json", async () => {
    const result = await runFake(["inventory", "list", "--json"], {
      stubs: serving(INVENTORY),
      isTTY: true,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(ANSI);
    expect(result.stdout).toContain(`"petId": ${MAX_ID}`);
    const parsed = JSON.parse(result.stdout) as { status: string }[];
    expect(parsed.map((item) => item.status)).toEqual(["available", "pending", "sold"]);
  });

  it("prints CSV with a header and the exact int64 petId with --csv", async () => {
    const result = await runFake(["inventory", "list", "--csv"], { stubs: serving(INVENTORY) });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `petId,quantity,status\n2,5,available\n7,0,pending\n${MAX_ID},1,sold\n`,
    );
  });

  it("prints just the CSV header for an empty inventory", async () => {
    const result = await runFake(["inventory", "list", "--csv"], { stubs: serving("[]") });
    expect(result).toMatchObject({ code: 0, stdout: "petId,quantity,status\n" });
  });

  it("filters by --status on the client", async () => {
    const result = await runFake(["inventory", "list", "--status", "pending"], {
      stubs: serving(INVENTORY),
    });
    expect(result).toMatchObject({ code: 0, stdout: "7\t0\tpending\n" });
  });

  it("rejects an unknown --status with exit 2 before any request", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "list", "--status", "lost"], { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: option '--status <status>' argument 'lost' is invalid");
    expect(result.stderr).toContain("available, pending, sold");
    expect(stubs.calls()).toEqual([]);
  });

  it("rejects --json together with --csv", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "list", "--json", "--csv"], { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot be used with option '--csv'");
    expect(stubs.calls()).toEqual([]);
  });
});

describe("inventory list requests", () => {
  it("sends the key as a bearer token and asks for JSON", async () => {
    const stubs = serving("[]");
    await runFake(["inventory", "list"], { stubs });
    const call = stubs.requests.at(-1);
    expect(`${call?.origin ?? ""}${call?.path ?? ""}`).toBe(`${BASE_URL}/inventory`);
    expect(call?.headers).toMatchObject({
      authorization: `Bearer ${KEY}`,
      accept: "application/json",
    });
  });

  it("traces requests and responses with --verbose, never showing the key", async () => {
    const result = await runFake(["--verbose", "inventory", "list"], { stubs: serving(INVENTORY) });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`* attempt 1: GET ${BASE_URL}/inventory`);
    expect(result.stderr).toContain("> authorization: Bearer [redacted]");
    expect(result.stderr).toContain("< 200 OK");
    expect(result.stderr).toContain(`< [{"petId":${MAX_ID}`);
    expect(result.stderr).not.toContain(KEY);
    expect(result.stdout).not.toContain("attempt");
  });

  it("redacts a key the server echoes back, without mangling words that contain a short key", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", "/v1/inventory").reply(200, "[]", {
      headers: {
        "content-type": "application/json",
        "x-echo": "Bearer k",
        connection: "keep-alive",
      },
    });
    const result = await runFake(["--verbose", "inventory", "list"], {
      stubs,
      env: { PETSTORE_BASE_URL: BASE_URL, PETSTORE_API_KEY: "k" },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("< x-echo: Bearer [redacted]");
    expect(result.stderr).toContain("< connection: keep-alive");
  });

  it("points a 404 without an Error body at the base URL: not a petstore server (exit 5)", async () => {
    const result = await runFake(["inventory", "list"], { stubs: serving("Not Found", 404) });
    expect(result).toMatchObject({
      code: 5,
      stdout: "",
      stderr:
        "error: the server answered 404 Not Found without an Error body: it does not look like a petstore server (HTTP 404)\n" +
        `hint: check that ${BASE_URL} (from PETSTORE_BASE_URL) is a petstore server's base URL: a petstore server answers every error with a JSON Error body\n`,
    });
  });

  it("treats a body of the wrong shape as a malformed response (exit 3)", async () => {
    const result = await runFake(["inventory", "list"], {
      stubs: serving('[{"petId":"7","quantity":1,"status":"available"}]'),
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `error: unexpected response from GET ${BASE_URL}/inventory: [0].petId is not an integer\n` +
        `hint: is ${BASE_URL} (from PETSTORE_BASE_URL) a petstore API? The base URL must end in /v1\n`,
    );
    expect(result.stdout).toBe("");
  });

  it("treats a body that is not JSON as a malformed response (exit 3)", async () => {
    const result = await runFake(["inventory", "list"], { stubs: serving("<html>hello</html>") });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("the body is not valid JSON");
  });

  it("rejects an unknown status value in the response", async () => {
    const result = await runFake(["inventory", "list"], {
      stubs: serving('[{"petId":1,"quantity":1,"status":"lost"}]'),
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("[0].status is not one of available, pending, sold");
  });
});
