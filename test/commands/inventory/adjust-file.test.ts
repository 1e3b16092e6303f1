/**
 * `inventory adjust --file` in-process on HTTP stubs: the file validated whole first, every row
 * sent with its ref (the file's, or the one made from --ref-prefix and the row's number),
 * a second run that changes nothing, failures, --atomic, --dry-run, --json, a server without
 * the batch endpoint, usage errors, and an interrupt between batches.
 */
import { describe, expect, it } from "vitest";
import { Interrupts } from "../../../src/program/interrupts.js";
import { fakeKey, HttpStubs, json, ORIGIN, runFake } from "../fake-deps.js";
import type { RefSet } from "../../../src/server/store/write-plan.js";
import { serveBatches, stockOf } from "./batch-server.js";

const SALES = "petId,delta,ref\n1,-1\n2,+3,till-7\n1,-2\n";
/** The --ref-prefix of the runs below, as a cron line would build it. */
const DAY = "till-1/2026-11-26";
const REF_PREFIX = ["--ref-prefix", DAY] as const;

/** The changes of each batch request, parsed (ids are small here). */
function sentChanges(stubs: HttpStubs) {
  return stubs.requests
    .filter((call) => call.method === "POST")
    .map((call) => (JSON.parse(call.body) as { changes: unknown[] }).changes);
}

describe("inventory adjust --file", () => {
  it("sends every row with its ref, the file's or <--ref-prefix>:<row>, and reports what changed", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(2, 10), { listed: false });
    const result = await runFake(["inventory", "adjust", "--file", "sales.csv", ...REF_PREFIX], {
      stubs,
      files: { "sales.csv": SALES },
    });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(sentChanges(stubs)).toEqual([
      [
        { petId: 1, delta: -1, ref: `${DAY}:1` },
        { petId: 2, delta: 3, ref: "till-7" },
        { petId: 1, delta: -2, ref: `${DAY}:3` },
      ],
    ]);
    expect(server.requests).toEqual([{ atomic: false, dryRun: false, size: 3, key: fakeKey(1) }]);
    expect(result.stdout).toBe(
      "sales.csv: 3 changed, 0 already applied (duplicate), 0 failed\n" +
        "changed:\n" +
        "  pet 1: 10 -> 9 (-1)\n" +
        "  pet 2: 10 -> 13 (+3)\n" +
        "  pet 1: 9 -> 7 (-2)\n",
    );
    expect([...server.stock.values()]).toEqual([7, 13]);
  });

  it("a second run of the same file changes nothing and says so: every row duplicate, exit 0", async () => {
    const first = new HttpStubs();
    const server = serveBatches(first, stockOf(2, 10), { listed: false });
    const files = { "sales.csv": SALES };
    const run = await runFake(["inventory", "adjust", "--file", "sales.csv", ...REF_PREFIX], {
      stubs: first,
      files,
    });
    expect(run.code).toBe(0);
    const stubs = new HttpStubs();
    serveBatches(stubs, server.stock, { listed: false, refs: server.refs });
    const again = await runFake(["inventory", "adjust", "--file", "sales.csv", ...REF_PREFIX], {
      stubs,
      files,
    });
    expect(again).toMatchObject({
      code: 0,
      stdout: "sales.csv: 0 changed, 3 already applied (duplicate), 0 failed\n",
      stderr: "",
    });
    expect([...server.stock.values()]).toEqual([7, 13]);
  });

  it("--json: the report as apply's, each row with its number, line, ref and outcome", async () => {
    const first = new HttpStubs();
    const server = serveBatches(first, stockOf(2, 10), { listed: false });
    const files = { "sales.csv": SALES };
    await runFake(["inventory", "adjust", "--file", "sales.csv", ...REF_PREFIX], {
      stubs: first,
      files,
    });
    const stubs = new HttpStubs();
    serveBatches(stubs, server.stock, { listed: false, refs: server.refs });
    const again = await runFake(
      ["inventory", "adjust", "--file", "sales.csv", ...REF_PREFIX, "--json"],
      {
        stubs,
        files,
      },
    );
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      changed: 0,
      unchanged: 3,
      failed: 0,
      notAttempted: 0,
      results: [
        {
          row: 1,
          line: 2,
          petId: 1,
          delta: -1,
          ref: `${DAY}:1`,
          outcome: "duplicate",
          previous: 7,
          quantity: 7,
        },
        {
          row: 2,
          line: 3,
          petId: 2,
          delta: 3,
          ref: "till-7",
          outcome: "duplicate",
          previous: 13,
          quantity: 13,
        },
        {
          row: 3,
          line: 4,
          petId: 1,
          delta: -2,
          ref: `${DAY}:3`,
          outcome: "duplicate",
          previous: 7,
          quantity: 7,
        },
      ],
    });
  });

  it("a row below 0 or of an unknown pet fails alone: exit 7, the others applied", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(2, 1), { listed: false });
    const result = await runFake(["inventory", "adjust", "--file", "-", ...REF_PREFIX], {
      stubs,
      stdin: "petId,delta\n1,-1\n2,-5\n99,+1\n",
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toBe(
      "stdin: 1 changed, 0 already applied (duplicate), 2 failed\n" +
        "changed:\n  pet 1: 1 -> 0 (-1)\n" +
        "failed:\n" +
        "  line 3: pet 2 -5: would go below 0 (it holds 1: -5 would make it -4)\n" +
        "  line 4: pet 99 +1: no such pet\n",
    );
    expect(result.stderr).toBe(
      "error: 2 of 3 rows failed (the report lists them); the other 1 was applied\n" +
        "hint: the rows applied stay applied: fix the failed ones in place and run the file again with the same refs (the same --ref-prefix till-1/2026-11-26, no row moved): the rows applied come back duplicate\n",
    );
    expect([...server.stock.values()]).toEqual([0, 1]);
  });

  it("reads a JSON array from stdin, numbering rows by entry", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(1, 5), { listed: false });
    const text = '[\n  {"petId": 1, "delta": -1},\n  {"petId": 1, "delta": 2, "ref": "r-2"}\n]\n';
    const result = await runFake(["inventory", "adjust", "--file", "-", ...REF_PREFIX, "--json"], {
      stubs,
      stdin: text,
    });
    expect(result.code).toBe(0);
    expect(sentChanges(stubs)).toEqual([
      [
        { petId: 1, delta: -1, ref: `${DAY}:1` },
        { petId: 1, delta: 2, ref: "r-2" },
      ],
    ]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      changed: 2,
      results: [
        { row: 1, line: 2, entry: 1 },
        { row: 2, line: 3, entry: 2 },
      ],
    });
  });

  it("sends 2,500 rows as requests of 1,000, 1,000 and 500, each with its own key", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(10, 100_000), { listed: false, times: 3 });
    const rows = Array.from({ length: 2500 }, (_, i) => `${(i % 10) + 1},-1\n`).join("");
    const result = await runFake(
      ["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX, "--json"],
      {
        stubs,
        files: { "s.csv": `petId,delta\n${rows}` },
      },
    );
    expect(result.code).toBe(0);
    expect(server.requests.map((request) => [request.size, request.key])).toEqual([
      [1000, fakeKey(1)],
      [1000, fakeKey(2)],
      [500, fakeKey(3)],
    ]);
    expect(server.stock.get(1n)).toBe(100_000 - 250);
  });
});

describe("inventory adjust --file --atomic and --dry-run", () => {
  it("--atomic: one batch; a failing row rejects it whole, exit 7, nothing changed", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(2, 1), { listed: false });
    const result = await runFake(
      ["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX, "--atomic"],
      {
        stubs,
        files: { "s.csv": "petId,delta\n1,+1\n2,-2\n" },
      },
    );
    expect(result.code).toBe(7);
    expect(server.requests).toEqual([{ atomic: true, dryRun: false, size: 2, key: fakeKey(1) }]);
    expect([...server.stock.values()]).toEqual([1, 1]);
    expect(result.stdout).toBe(
      "s.csv: 0 changed, 0 already applied (duplicate), 2 failed (the atomic batch was rejected for 1 of them: nothing was changed)\n" +
        "failed:\n  line 3: pet 2 -2: would go below 0 (it holds 1: -2 would make it -1)\n" +
        "not applied (1 row: the batch is atomic and the rows above failed):\n  line 2: pet 1 +1\n",
    );
    expect(result.stderr).toBe(
      "error: the atomic batch was rejected: 1 of 2 rows failed (the report lists them); nothing was changed\n" +
        "hint: fix the failed rows and run the file again: nothing of it was applied\n",
    );
  });

  it("--atomic --json: a rejected batch's rows hold what their pets hold now, not what the batch would have made", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(2, 1), { listed: false });
    const result = await runFake(
      ["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX, "--atomic", "--json"],
      { stubs, files: { "s.csv": "petId,delta\n1,+1\n1,+2\n2,-2\n" } },
    );
    expect(result.code).toBe(7);
    const report = JSON.parse(result.stdout) as { results: { quantity: number | null }[] };
    // Pet 1 holds 1: the batch would have made it 2, then 4; pet 2 holds 1 (-2 failed).
    expect(report.results.map((row) => row.quantity)).toEqual([1, 1, 1]);
  });

  it("--atomic refuses more than 10,000 rows before sending anything (exit 2)", async () => {
    const stubs = new HttpStubs();
    const rows = Array.from({ length: 10_001 }, () => "1,-1\n").join("");
    const result = await runFake(
      ["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX, "--atomic"],
      {
        stubs,
        files: { "s.csv": `petId,delta\n${rows}` },
      },
    );
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toBe(
      "error: s.csv: 10001 rows, more than the 10000 one atomic batch can hold; nothing was applied\n" +
        "hint: split the file into parts of at most 10000 rows, or run without --atomic (requests of 1000 rows, each applied alone)\n",
    );
    expect(stubs.calls()).toEqual([]);
  });

  it("--dry-run asks the server (dryRun) and changes nothing; a row that would fail exits 7", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(1, 1), { listed: false });
    const result = await runFake(
      ["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX, "--dry-run"],
      {
        stubs,
        files: { "s.csv": "petId,delta\n1,-1\n99,-1\n" },
      },
    );
    expect(result.code).toBe(7);
    expect(server.requests).toEqual([{ atomic: false, dryRun: true, size: 2, key: fakeKey(1) }]);
    expect(server.stock.get(1n)).toBe(1);
    expect(result.stdout).toBe(
      "dry run of s.csv: 1 of 2 rows would change, 0 already applied (duplicate), 1 would fail; nothing was changed\n" +
        "would change:\n  pet 1: 1 -> 0 (-1)\n" +
        "would fail:\n  line 3: pet 99 -1: no such pet\n",
    );
    expect(result.stderr).toBe(
      "error: dry run: 1 of 2 rows would fail (the report lists them); nothing was changed\n" +
        "hint: a real run would apply the others and exit 7 too; fix the failing rows first, or run it as it is\n",
    );
  });

  it("--dry-run --json: wouldChange, unchanged, wouldFail", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(1, 1), { listed: false });
    const result = await runFake(
      ["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX, "--dry-run", "--json"],
      {
        stubs,
        files: { "s.csv": "petId,delta,ref\n1,-1,a\n" },
      },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      dryRun: true,
      wouldChange: 1,
      unchanged: 0,
      wouldFail: 0,
      notAttempted: 0,
      results: [
        {
          row: 1,
          line: 2,
          petId: 1,
          delta: -1,
          ref: "a",
          outcome: "would_change",
          previous: 1,
          quantity: 0,
        },
      ],
    });
  });
});

describe("inventory adjust --file refuses, changing nothing", () => {
  it("a server without the batch endpoint: exit 2, no PATCH", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("POST", "/v1/inventory/batch")
      .reply(
        404,
        '{"code":"not_found","message":"Route POST:/v1/inventory/batch not found","status":404}',
        json,
      );
    const result = await runFake(["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX], {
      stubs,
      files: { "s.csv": SALES },
    });
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toBe(
      "error: adjust --file needs the batch endpoint, and the server has no batch endpoint (POST /inventory/batch answered 404); nothing was changed\n" +
        "hint: use a server that has POST /inventory/batch (petstore serve does); the server keeps each row's ref there, which is what applies a file once however often it runs\n",
    );
    expect(stubs.calls()).toEqual(["POST /v1/inventory/batch"]);
  });

  it.each([
    ["petId,delta\n1,-1\n2,0\n", 's.csv line 3: invalid delta "0": a delta of 0 changes nothing'],
    ["petId,delta\n1,-1\nx,1\n", 's.csv line 3: invalid petId "x"'],
    ["petId,amount\n1,5\n", "s.csv line 1: the header has no delta column"],
    ["petId,quantity\n1,5\n", "s.csv line 1: the header has a quantity column: a file of changes"],
    ["petId,delta,ref\n1,1,two words\n", 's.csv line 2: invalid ref "two words"'],
    ["petId,delta\n1,2147483648\n", 's.csv line 2: invalid delta "2147483648"'],
  ])("a bad file %j: exit 2 naming the line, no request", async (text, message) => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX], {
      stubs,
      files: { "s.csv": text },
    });
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toContain(`error: ${message}`);
    expect(result.stderr).toContain("hint: fix the file and run again; nothing was applied\n");
    expect(stubs.calls()).toEqual([]);
  });

  it("an unreadable file: exit 2", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "adjust", "--file", "nope.csv", ...REF_PREFIX], {
      stubs,
    });
    expect(result).toMatchObject({
      code: 2,
      stderr:
        "error: cannot read nope.csv: no such file or directory\nhint: give a readable CSV or JSON file, or - to read stdin\n",
    });
  });

  it.each([
    [
      ["inventory", "adjust", "42", "-1", "--file", "s.csv"],
      "error: --file takes no petId or delta (got 42 -1)\n" +
        "hint: either petstore inventory adjust <petId> <delta>, or petstore inventory adjust --file <file>\n",
    ],
    [
      ["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX, "42"],
      "error: --file takes no petId or delta (got 42)\n" +
        "hint: either petstore inventory adjust <petId> <delta>, or petstore inventory adjust --file <file>\n",
    ],
    [
      ["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX, "--attempts", "3"],
      "error: --attempts is for adjusting one pet; --file sends the rows in batches\nhint: leave out --attempts\n",
    ],
    [
      ["inventory", "adjust", "42", "-1", "--dry-run"],
      "error: --dry-run goes with --file\n" +
        "hint: petstore inventory adjust --file <file> applies a file of changes; see petstore inventory adjust --help\n",
    ],
    [
      ["inventory", "adjust", "42", "-1", "--atomic"],
      "error: --atomic goes with --file\n" +
        "hint: petstore inventory adjust --file <file> applies a file of changes; see petstore inventory adjust --help\n",
    ],
    [
      ["inventory", "adjust", "42", "-1", "--ref-prefix", DAY],
      "error: --ref-prefix goes with --file\n" +
        "hint: petstore inventory adjust --file <file> applies a file of changes; see petstore inventory adjust --help\n",
    ],
    [
      ["inventory", "adjust", "42", "-1", "--no-ref"],
      "error: --no-ref goes with --file\n" +
        "hint: petstore inventory adjust --file <file> applies a file of changes; see petstore inventory adjust --help\n",
    ],
    [
      ["inventory", "adjust", "--file", "s.csv", "--ref-prefix", DAY, "--no-ref"],
      "error: --ref-prefix and --no-ref say opposite things: give one\n" +
        "hint: --ref-prefix P makes each row without a ref apply once (as P:<row>); --no-ref applies it every time the file runs\n",
    ],
    [
      ["inventory", "adjust", "--file", "s.csv", "--ref-prefix", "till 1"],
      "error: option '--ref-prefix <prefix>' argument 'till 1' is invalid. expected 1 to 100 visible ASCII characters (no spaces), such as till-1/2026-11-26.\n" +
        "hint: see petstore inventory adjust --help\n",
    ],
    [
      ["inventory", "adjust", "42"],
      "error: missing required argument 'delta'\n" +
        "hint: petstore inventory adjust <petId> <delta> (for example 42 -1), or --file <file>\n",
    ],
    [
      ["inventory", "adjust"],
      "error: missing required argument 'petId'\n" +
        "hint: petstore inventory adjust <petId> <delta> (for example 42 -1), or --file <file>\n",
    ],
  ])("%j is a usage error (exit 2), nothing sent", async (argv, stderr) => {
    const stubs = new HttpStubs();
    const result = await runFake(argv, { stubs, files: { "s.csv": SALES } });
    expect(result).toMatchObject({ code: 2, stdout: "", stderr });
    expect(stubs.calls()).toEqual([]);
  });

  it("a refused key on the first batch is exit 4", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("POST", "/v1/inventory/batch")
      .reply(401, '{"code":"unauthorized","message":"invalid API key","status":401}', json);
    const result = await runFake(["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX], {
      stubs,
      files: { "s.csv": SALES },
    });
    expect(result).toMatchObject({ code: 4, stdout: "" });
    expect(result.stderr).toContain("error: invalid API key (unauthorized, HTTP 401)\n");
  });
});

describe("inventory adjust --file: a row's ref is never guessed", () => {
  it("rows without a ref and neither flag: exit 2 naming the first line and the ways to fix it, nothing sent", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "adjust", "--file", "sales.csv"], {
      stubs,
      files: { "sales.csv": SALES },
    });
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toBe(
      "error: sales.csv line 2: a row without a ref (2 of 3 rows have none), and neither --ref-prefix nor --no-ref was given; nothing was sent\n" +
        'hint: give each row its own ref (a ref column: petId,delta,ref), or name this run with --ref-prefix, as a cron line would: --ref-prefix "till-1/$(date +%F)" gives the rows till-1/2026-11-26:1, :2, ...; or --no-ref to apply these deltas again every time the file runs\n',
    );
    expect(stubs.calls()).toEqual([]);
  });

  it("two rows with one ref: exit 2 naming both lines, nothing sent", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "adjust", "--file", "sales.csv"], {
      stubs,
      files: { "sales.csv": "petId,delta,ref\n1,-1,r-1\n1,-1,r-1\n" },
    });
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toBe(
      'error: sales.csv line 3: ref "r-1" again: line 2 has it too\n' +
        "hint: give each row a ref of its own: a ref names one change (the server applies a ref once per pet, so a second row of that pet with it would be dropped as a duplicate); fix the file and run again; nothing was sent\n",
    );
    expect(stubs.calls()).toEqual([]);
  });

  it("the same bytes on two days with two prefixes both apply; a day run twice applies once", async () => {
    const files = { "sales.csv": "petId,delta\n1,-1\n" };
    const stock = stockOf(1, 10);
    let refs: RefSet | undefined;
    const runDay = async (day: string) => {
      const stubs = new HttpStubs();
      const server = serveBatches(stubs, stock, { listed: false, ...(refs ? { refs } : {}) });
      refs = server.refs;
      const result = await runFake(
        ["inventory", "adjust", "--file", "sales.csv", "--ref-prefix", `till-1/${day}`],
        { stubs, files },
      );
      return { result, sent: sentChanges(stubs) };
    };
    const first = await runDay("2026-11-25");
    expect(first.result.stdout).toBe(
      "sales.csv: 1 changed, 0 already applied (duplicate), 0 failed\nchanged:\n  pet 1: 10 -> 9 (-1)\n",
    );
    expect(first.sent).toEqual([[{ petId: 1, delta: -1, ref: "till-1/2026-11-25:1" }]]);
    const second = await runDay("2026-11-26");
    expect(second.result.stdout).toBe(
      "sales.csv: 1 changed, 0 already applied (duplicate), 0 failed\nchanged:\n  pet 1: 9 -> 8 (-1)\n",
    );
    expect(second.sent).toEqual([[{ petId: 1, delta: -1, ref: "till-1/2026-11-26:1" }]]);
    const again = await runDay("2026-11-26");
    expect(again.result).toMatchObject({
      code: 0,
      stdout: "sales.csv: 0 changed, 1 already applied (duplicate), 0 failed\n",
    });
    expect([...stock.values()]).toEqual([8]);
  });

  it("--no-ref sends a row without a ref without one: it applies every run", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(1, 10), { listed: false });
    const files = { "d.csv": "petId,delta,ref\n1,+2\n1,+1,kept\n" };
    const result = await runFake(["inventory", "adjust", "--file", "d.csv", "--no-ref", "--json"], {
      stubs,
      files,
    });
    expect(result.code).toBe(0);
    expect(sentChanges(stubs)).toEqual([
      [
        { petId: 1, delta: 2 },
        { petId: 1, delta: 1, ref: "kept" },
      ],
    ]);
    expect(JSON.parse(result.stdout)).toMatchObject({
      changed: 2,
      results: [
        { row: 1, ref: null, outcome: "changed" },
        { row: 2, ref: "kept", outcome: "changed" },
      ],
    });
    expect([...server.stock.values()]).toEqual([13]);
  });
});

describe("inventory adjust --file interrupted", () => {
  it("SIGTERM: the batch in flight finishes, no other is sent, exit 143 after the report", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(1, 100_000), { listed: false });
    const interrupts = new Interrupts();
    stubs.hold("POST", (_count, gate) => {
      interrupts.deliver("SIGTERM");
      gate.release();
    });
    const rows = Array.from({ length: 1500 }, () => "1,-1\n").join("");
    const result = await runFake(
      ["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX, "--json"],
      {
        stubs,
        files: { "s.csv": `petId,delta\n${rows}` },
        interrupts,
      },
    );
    expect(result.code).toBe(143);
    expect(server.requests).toHaveLength(1);
    expect(server.stock.get(1n)).toBe(100_000 - 1000);
    const report = JSON.parse(result.stdout) as {
      results: { outcome: string; reason?: string }[];
    };
    expect(report).toMatchObject({
      changed: 1000,
      unchanged: 0,
      failed: 0,
      notAttempted: 500,
      interruptedBy: "SIGTERM",
      interruptedDuring: "sending",
    });
    expect(report.results[1000]).toMatchObject({ outcome: "not_attempted" });
    expect(report.results[1000]?.reason).toBe(
      "not attempted: interrupted by SIGTERM; run again to apply it",
    );
    expect(result.stderr).toBe(
      "interrupted by SIGTERM: sending no more changes; finishing the batch in flight, then printing the report (interrupt again to stop at once)\n" +
        "error: interrupted by SIGTERM: 1000 changes applied, 500 rows not attempted (the report lists them)\n" +
        "hint: run the same file again, unchanged with the same --ref-prefix till-1/2026-11-26: the rows it applied come back duplicate, so only the others apply\n",
    );
  });
});

describe("inventory adjust --file --atomic, a body too large for one request", () => {
  it("is refused before anything is sent (exit 2)", async () => {
    const stubs = new HttpStubs();
    // 10,000 rows with refs of 128 characters, most of them escaped quotes: over 2 MiB.
    const ref = `${'\\"'.repeat(60)}${"r".repeat(4)}`;
    const rows = Array.from(
      { length: 10_000 },
      (_, i) =>
        `9223372036854775807,-2147483647,"${ref.replaceAll('"', '""')}${String(i).padStart(4, "0")}"\n`,
    ).join("");
    const result = await runFake(
      ["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX, "--atomic"],
      {
        stubs,
        files: { "s.csv": `petId,delta,ref\n${rows}` },
      },
    );
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toMatch(
      /^error: s\.csv: as one atomic batch its 10000 rows take \d+ bytes, more than the 2097152 one request can carry; nothing was applied\n/,
    );
    expect(stubs.calls()).toEqual([]);
  });
});

describe("inventory adjust --file: the other ways a run ends", () => {
  it("--dry-run --atomic with a failing row: the batch would be rejected, exit 7", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(1, 1), { listed: false });
    const result = await runFake(
      ["inventory", "adjust", "--file", "-", ...REF_PREFIX, "--dry-run", "--atomic"],
      {
        stubs,
        stdin: "petId,delta\n1,+1\n99,+1\n",
      },
    );
    expect(result.code).toBe(7);
    expect(server.requests).toEqual([{ atomic: true, dryRun: true, size: 2, key: fakeKey(1) }]);
    expect(result.stdout).toBe(
      "dry run of stdin: 0 of 2 rows would change, 0 already applied (duplicate), 2 would fail (the atomic batch would be rejected for 1 of them: nothing would change); nothing was changed\n" +
        "would fail:\n  line 3: pet 99 +1: no such pet\n" +
        "would not be applied (1 row: the batch is atomic and the rows above would fail):\n  line 2: pet 1 +1\n",
    );
    expect(result.stderr).toBe(
      "error: dry run: 1 of 2 rows would fail, so the atomic batch would be rejected; nothing was changed\n" +
        "hint: fix the failing rows first: with --atomic nothing is applied while one fails\n",
    );
  });

  it("a later batch that keeps failing stops the run: exit 3 as the server's failure, and running the file again is safe", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(1, 100_000), { listed: false });
    stubs
      .on("POST", "/v1/inventory/batch")
      .reply(503, '{"code":"unavailable","message":"database busy","status":503}', json)
      .times(3);
    const rows = Array.from({ length: 1200 }, () => "1,-1\n").join("");
    const result = await runFake(["inventory", "adjust", "--file", "s.csv", ...REF_PREFIX], {
      stubs,
      files: { "s.csv": `petId,delta\n${rows}` },
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(
      /^s\.csv: 1000 changed, 0 already applied \(duplicate\), 200 failed\n/,
    );
    expect(result.stdout).toContain(
      "failed:\n  line 1002: pet 1 -1: database busy (unavailable, HTTP 503, after 3 attempts)\n",
    );
    expect(result.stderr).toBe(
      "error: a batch request failed (database busy (unavailable, HTTP 503, after 3 attempts)), so the run stopped: 200 of 1200 rows not applied; the other 1000 were applied\n" +
        "hint: run the same file again, unchanged with the same --ref-prefix till-1/2026-11-26: the rows it applied come back duplicate, so only the others apply\n",
    );
  });

  it("a later batch without an answer: its rows may have been applied; without refs the hint says to look before sending them again", async () => {
    const run = async (refs: readonly string[]) => {
      const stubs = new HttpStubs();
      serveBatches(stubs, stockOf(1, 100_000), { listed: false });
      stubs.on("POST", "/v1/inventory/batch").hang();
      const rows = Array.from({ length: 1200 }, () => "1,-1\n").join("");
      return runFake(
        ["--timeout", "300", "--retries", "0", "inventory", "adjust", "--file", "s.csv", ...refs],
        { stubs, files: { "s.csv": `petId,delta\n${rows}` } },
      );
    };
    const unanswered = `POST ${ORIGIN}/v1/inventory/batch timed out: no answer within 300 ms; it may have been applied`;
    const withRefs = await run(REF_PREFIX);
    expect(withRefs.code).toBe(3);
    expect(withRefs.stdout).toContain(`failed:\n  line 1002: pet 1 -1: ${unanswered}\n`);
    expect(withRefs.stderr).toBe(
      `error: a batch request failed (${unanswered}), so the run stopped: 200 of 1200 rows not known to be applied (200 sent without an answer, which may have been applied); the other 1000 were applied\n` +
        "hint: run the same file again, unchanged with the same --ref-prefix till-1/2026-11-26: the rows it applied come back duplicate, so only the others apply\n",
    );
    const withoutRefs = await run(["--no-ref"]);
    expect(withoutRefs.code).toBe(3);
    expect(withoutRefs.stderr).toContain(
      "hint: the rows this run applied or may have applied (sent without an answer) have no ref, so running the file again could apply them twice: see with petstore inventory history which of those were applied, and put the rows not applied in a file of their own\n",
    );
  });
});
