import { describe, expect, it } from "vitest";
import { findLowStock } from "../../../src/commands/inventory/low-run.js";
import { closedPort, CONFIGURED_ENV, HttpStubs, json, runFake } from "../fake-deps.js";
import { MAX_ID, MAX_ID_TEXT } from "../../support/ids.js";

/** Five pets: 2 has 5 available, 3 has 0 pending, 7 has 2 available, 9 has 1 sold, MAX has 1. */
const INVENTORY =
  `[{"petId":${MAX_ID_TEXT},"quantity":1,"status":"available"},` +
  `{"petId":7,"quantity":2,"status":"available"},{"petId":2,"quantity":5,"status":"available"},` +
  `{"petId":3,"quantity":0,"status":"pending"},{"petId":9,"quantity":1,"status":"sold"}]`;

function serving(body: string, status = 200) {
  const stubs = new HttpStubs();
  stubs.on("GET", "/v1/inventory").reply(status, body, json);
  return stubs;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/;

describe("inventory low --below", () => {
  it("prints the low pets as tab-separated lines sorted by petId and exits 9, saying nothing on stderr", async () => {
    const stubs = serving(INVENTORY);
    const result = await runFake(["inventory", "low", "--below", "2"], { stubs });
    expect(result).toEqual({
      code: 9,
      stdout: `3\t0\tpending\t2\n9\t1\tsold\t2\n${MAX_ID_TEXT}\t1\tavailable\t2\n`,
      stderr: "",
      sleeps: [],
    });
  });

  it("makes one request only, GET /inventory, as any server of the spec answers", async () => {
    const stubs = serving(INVENTORY);
    await runFake(["inventory", "low", "--below", "3", "--thresholds", "m.csv"], {
      stubs,
      files: { "m.csv": "petId,minimum\n2,9\n" },
    });
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
  });

  it("exits 0 with no output when piped and nothing is low (quantity equal to N is not low)", async () => {
    const result = await runFake(["inventory", "low", "--below", "1"], {
      stubs: serving('[{"petId":1,"quantity":1,"status":"available"}]'),
    });
    expect(result).toMatchObject({ code: 0, stdout: "", stderr: "" });
  });

  it("prints a table with the minimum, how many short, and a summary on a terminal", async () => {
    const result = await runFake(["inventory", "low", "--below", "2"], {
      stubs: serving(INVENTORY),
      isTTY: true,
    });
    expect(result.code).toBe(9);
    expect(result.stdout).toMatch(ANSI);
    expect(result.stderr).toBe("");
    const plain = await runFake(["--no-color", "inventory", "low", "--below", "2"], {
      stubs: serving(INVENTORY),
      isTTY: true,
    });
    expect(plain.stdout).not.toMatch(ANSI);
    expect(plain.stdout).toMatch(/│ +petId │ quantity │ status +│ minimum │ short │/);
    expect(plain.stdout).toMatch(/│ +3 │ +0 │ pending +│ +2 │ +2 │/);
    expect(plain.stdout).toMatch(new RegExp(`│ ${MAX_ID_TEXT} │ +1 │ available │ +2 │ +1 │`));
    expect(plain.stdout).toContain("3 of 5 pets checked are low\n");
  });

  it("says that nothing is low on a terminal (exit 0)", async () => {
    const result = await runFake(["inventory", "low", "--below", "1", "--status", "available"], {
      stubs: serving(INVENTORY),
      isTTY: true,
    });
    expect(result).toMatchObject({
      code: 0,
      stdout: "nothing is low (3 pets checked)\n",
      stderr: "",
    });
  });

  it("prints a JSON array with each minimum and the int64 petId exact with --json", async () => {
    const result = await runFake(["inventory", "low", "--below", "1", "--json"], {
      stubs: serving(INVENTORY),
      isTTY: true,
    });
    expect(result.code).toBe(9);
    expect(result.stdout).not.toMatch(ANSI);
    expect(result.stdout).toBe(
      '[\n  {\n    "petId": 3,\n    "quantity": 0,\n    "status": "pending",\n    "minimum": 1\n  }\n]\n',
    );
    const big = await runFake(["inventory", "low", "--below", "2", "--json"], {
      stubs: serving(INVENTORY),
    });
    expect(big.stdout).toContain(`"petId": ${MAX_ID_TEXT},`);
  });

  it("prints [] with --json when nothing is low (exit 0)", async () => {
    const result = await runFake(["inventory", "low", "--below", "1", "--json"], {
      stubs: serving("[]"),
    });
    expect(result).toMatchObject({ code: 0, stdout: "[]\n", stderr: "" });
  });

  it("prints CSV with a header and the exact int64 petId with --csv", async () => {
    const result = await runFake(["inventory", "low", "--below", "2", "--csv"], {
      stubs: serving(INVENTORY),
    });
    expect(result).toMatchObject({
      code: 9,
      stdout: `petId,quantity,status,minimum\n3,0,pending,2\n9,1,sold,2\n${MAX_ID_TEXT},1,available,2\n`,
    });
  });

  it("prints just the CSV header when nothing is low (exit 0)", async () => {
    const result = await runFake(["inventory", "low", "--below", "1", "--csv"], {
      stubs: serving('[{"petId":1,"quantity":4,"status":"sold"}]'),
    });
    expect(result).toMatchObject({ code: 0, stdout: "petId,quantity,status,minimum\n" });
  });

  it("checks only the pets of --status, on the client", async () => {
    const stubs = serving(INVENTORY);
    const result = await runFake(["inventory", "low", "--below", "3", "--status", "available"], {
      stubs,
    });
    expect(result).toMatchObject({
      code: 9,
      stdout: `7\t2\tavailable\t3\n${MAX_ID_TEXT}\t1\tavailable\t3\n`,
    });
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
  });

  it("exits 0 when the low pets all have another --status", async () => {
    const result = await runFake(["inventory", "low", "--below", "1", "--status", "sold"], {
      stubs: serving(INVENTORY),
    });
    expect(result).toMatchObject({ code: 0, stdout: "", stderr: "" });
  });

  it.each([
    ["0", "expected a whole number from 1 to 2147483647."],
    ["-1", "argument '-1' is invalid"],
    ["x", "expected a whole number from 1 to 2147483647."],
    ["2.5", "expected a whole number from 1 to 2147483647."],
    ["03", "leading zeros are not allowed; write 3"],
    ["2147483648", "expected a whole number from 1 to 2147483647."],
  ])("refuses --below %s with exit 2 before any request", async (value, message) => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "low", "--below", value], { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(stubs.calls()).toEqual([]);
  });
});

describe("inventory low --thresholds", () => {
  const MINIMUMS = "petId,minimum\n2,6\n3,0\n7,2\n";

  it("uses each pet's minimum and checks only the pets of the file", async () => {
    const result = await runFake(["inventory", "low", "--thresholds", "m.csv"], {
      stubs: serving(INVENTORY),
      files: { "m.csv": MINIMUMS },
    });
    // 2 (5 < 6) is low; 3 (0, minimum 0) and 7 (2, minimum 2) are not; 9 and MAX unchecked.
    expect(result).toMatchObject({ code: 9, stdout: "2\t5\tavailable\t6\n", stderr: "" });
  });

  it("with --below too: a pet of the file uses its minimum (0 exempts it), the others --below", async () => {
    const result = await runFake(
      ["inventory", "low", "--thresholds", "m.csv", "--below", "3", "--csv"],
      { stubs: serving(INVENTORY), files: { "m.csv": MINIMUMS } },
    );
    expect(result).toMatchObject({
      code: 9,
      stdout:
        "petId,quantity,status,minimum\n2,5,available,6\n9,1,sold,3\n" +
        `${MAX_ID_TEXT},1,available,3\n`,
      stderr: "",
    });
  });

  it("counts only the pets with a minimum as checked on a terminal", async () => {
    const result = await runFake(["--no-color", "inventory", "low", "--thresholds", "m.csv"], {
      stubs: serving(INVENTORY),
      files: { "m.csv": "petId,minimum\n3,0\n7,1\n" },
      isTTY: true,
    });
    expect(result).toMatchObject({ code: 0, stdout: "nothing is low (2 pets checked)\n" });
  });

  it("reads the file from stdin for -", async () => {
    const result = await runFake(["inventory", "low", "--thresholds", "-"], {
      stubs: serving(INVENTORY),
      stdin: "\uFEFFminimum,petId\r\n3,9\r\n\r\n",
    });
    expect(result).toMatchObject({ code: 9, stdout: "9\t1\tsold\t3\n", stderr: "" });
  });

  it("warns about pets of the file the inventory does not list, and does not count them low", async () => {
    const result = await runFake(["inventory", "low", "--thresholds", "m.csv"], {
      stubs: serving(INVENTORY),
      files: { "m.csv": "petId,minimum\n7,1\n404,5\n2,1\n405,1\n" },
    });
    expect(result).toMatchObject({
      code: 0,
      stdout: "",
      stderr:
        "warning: 2 pets in m.csv are not in the inventory, so not checked: 404 (line 3), 405 (line 5)\n",
    });
  });

  it("warns that a file without rows makes nothing low, when there is no --below", async () => {
    const result = await runFake(["inventory", "low", "--thresholds", "m.csv"], {
      stubs: serving(INVENTORY),
      files: { "m.csv": "petId,minimum\n" },
    });
    expect(result).toMatchObject({
      code: 0,
      stdout: "",
      stderr: "warning: m.csv lists no pets, so nothing can be low\n",
    });
  });

  it.each([
    ["petId,minimum\n1,2\n3,x\n", 'm.csv line 3: invalid minimum "x"'],
    ["petId,minimum\n1,2\n1,3\n", "m.csv line 3: duplicate petId 1 (first on line 2)"],
    ["petId,quantity\n1,2\n", "m.csv line 1: the header has no minimum column"],
    ["petId,minimum\n1,-2\n", 'm.csv line 2: invalid minimum "-2"'],
    ["petId,minimum\n\n1\n", "m.csv line 3: missing minimum"],
    ["", "m.csv line 1: no header: expected a first line petId,minimum"],
  ])(
    "refuses the malformed file %j with exit 2 naming the line, fetching nothing",
    async (text, message) => {
      const stubs = new HttpStubs();
      const result = await runFake(["inventory", "low", "--thresholds", "m.csv", "--below", "3"], {
        stubs,
        files: { "m.csv": text },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`error: ${message}`);
      expect(result.stderr).toContain("hint: fix the file and run again; nothing was fetched\n");
      expect(result.stdout).toBe("");
      expect(stubs.calls()).toEqual([]);
    },
  );

  it("refuses a file it cannot read with exit 2, fetching nothing", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "low", "--thresholds", "nope.csv"], { stubs });
    expect(result).toMatchObject({
      code: 2,
      stderr:
        "error: cannot read nope.csv: no such file or directory\n" +
        "hint: give a readable CSV file with the header petId,minimum, or - to read stdin\n",
    });
    expect(stubs.calls()).toEqual([]);
  });

  it("checks the file before the configuration", async () => {
    const result = await runFake(["inventory", "low", "--thresholds", "m.csv"], {
      env: {},
      files: { "m.csv": "petId,minimum\n1,x\n" },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('m.csv line 2: invalid minimum "x"');
  });
});

describe("inventory low usage and errors", () => {
  it("needs --below or --thresholds (exit 2, no request)", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "low"], { stubs });
    expect(result).toMatchObject({
      code: 2,
      stdout: "",
      stderr:
        "error: say what is low: give --below N, --thresholds FILE, or both\n" +
        "hint: for example: petstore inventory low --below 3\n",
    });
    expect(stubs.calls()).toEqual([]);
  });

  it("rejects --json together with --csv", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "low", "--below", "1", "--json", "--csv"], {
      stubs,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot be used with option '--csv'");
    expect(stubs.calls()).toEqual([]);
  });

  it("rejects an unknown --status with exit 2", async () => {
    const result = await runFake(["inventory", "low", "--below", "1", "--status", "lost"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("available, pending, sold");
  });

  it("names the missing base URL (exit 2) before any request", async () => {
    const result = await runFake(["inventory", "low", "--below", "1"], { env: {} });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("PETSTORE_BASE_URL");
  });

  it("exits 4 when the key is refused, printing no list", async () => {
    const result = await runFake(["inventory", "low", "--below", "1"], {
      stubs: serving('{"code":"unauthorized","message":"invalid API key","status":401}', 401),
    });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("error: invalid API key (unauthorized, HTTP 401)");
  });

  it("exits 3 when the server cannot be reached", async () => {
    const result = await runFake(["--retries", "0", "inventory", "low", "--below", "1"], {
      env: { ...CONFIGURED_ENV, PETSTORE_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1` },
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
  });
});

describe("findLowStock", () => {
  const items = [
    { petId: 5n, quantity: 0, status: "sold" as const },
    { petId: MAX_ID, quantity: 3, status: "available" as const },
    { petId: 1n, quantity: 2, status: "available" as const },
  ];
  const row = (petId: bigint, minimum: number, line: number) => ({
    petId,
    minimum,
    location: { line },
  });

  it("uses the file's minimum over --below, sorts by petId, and lists the file's unknown pets", () => {
    expect(findLowStock(items, [row(MAX_ID, 4, 2), row(8n, 1, 3)], { below: 3 })).toEqual({
      low: [
        { petId: 1n, quantity: 2, status: "available", minimum: 3 },
        { petId: 5n, quantity: 0, status: "sold", minimum: 3 },
        { petId: MAX_ID, quantity: 3, status: "available", minimum: 4 },
      ],
      checked: 3,
      unlisted: [row(8n, 1, 3)],
    });
  });

  it("checks nothing without a minimum, and never a minimum of 0", () => {
    expect(findLowStock(items, [row(5n, 0, 2)], {})).toEqual({
      low: [],
      checked: 1,
      unlisted: [],
    });
  });

  it("leaves out other statuses, without calling their file rows unknown", () => {
    expect(findLowStock(items, [row(5n, 1, 2)], { below: 9, status: "available" })).toEqual({
      low: [
        { petId: 1n, quantity: 2, status: "available", minimum: 9 },
        { petId: MAX_ID, quantity: 3, status: "available", minimum: 9 },
      ],
      checked: 2,
      unlisted: [],
    });
  });
});
