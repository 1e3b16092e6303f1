/**
 * `inventory apply` in-process, on HTTP stubs, against a server without the batch endpoint (it
 * answers POST /inventory/batch 404, as one that implements only the spec does), so the run
 * falls back to one PATCH per row: validation before any request, the plan, and the faults a
 * real server cannot produce on demand (503 then 200, a row that keeps failing, resets, a
 * server that goes away), plus the concurrency bound. The batch path: apply-batches.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Interrupts } from "../../../src/program/interrupts.js";
import { BASE_URL, fakeKey, HttpStubs, json, runFake } from "../fake-deps.js";
import { MAX_ID_TEXT as MAX_ID } from "../../support/ids.js";

const INVENTORY = `[{"petId":1,"quantity":3,"status":"available"},{"petId":2,"quantity":0,"status":"pending"},{"petId":3,"quantity":4,"status":"sold"},{"petId":${MAX_ID},"quantity":1,"status":"sold"}]`;
const INVENTORY_PATH = "/v1/inventory";
const BATCH_PATH = "/v1/inventory/batch";
/** What a server without the batch endpoint answers it (the bundled server's 404 for a route). */
const NO_BATCH_ROUTE =
  '{"code":"not_found","message":"Route POST:/v1/inventory/batch not found","status":404}';
/** What a run says once when the server has no batch endpoint. */
const FALLBACK_NOTE =
  "note: the server has no batch endpoint (POST /inventory/batch answered 404): applying one PATCH per row instead\n";
const DRY_RUN_NOTE =
  "note: the server has no batch endpoint (POST /inventory/batch answered 404): this dry run shows what differs from the stock it read; the server was not asked whether each change would apply\n";

/** Has the stubs answer the batch endpoint 404 once (the run's first, and only, batch). */
function withoutBatches(stubs: HttpStubs): HttpStubs {
  stubs.on("POST", BATCH_PATH).reply(404, NO_BATCH_ROUTE, json);
  return stubs;
}
const patchPath = (petId: string | number) => `/v1/inventory/${String(petId)}`;

function entry(petId: string | number, quantity: number): string {
  return `{"petId":${String(petId)},"quantity":${quantity},"status":"available"}`;
}

/**
 * Stubs that serve INVENTORY once, answers the batch endpoint 404 (unless the run sends
 * no batch: `batch: false`) and 200 to each listed PATCH once.
 */
function serving(
  patches: readonly [string | number, number][] = [],
  { batch = true }: { batch?: boolean } = {},
): HttpStubs {
  const stubs = new HttpStubs();
  if (batch) withoutBatches(stubs);
  stubs.on("GET", INVENTORY_PATH).reply(200, INVENTORY, json);
  for (const [petId, quantity] of patches) {
    stubs.on("PATCH", patchPath(petId)).reply(200, entry(petId, quantity), json);
  }
  return stubs;
}

function patchBodies(stubs: HttpStubs): string[] {
  return stubs.requests
    .filter((call) => call.method === "PATCH")
    .map((call) => `${call.path} ${call.body}`)
    .sort();
}

const COUNTS = `petId,quantity\n1,5\n2,0\n3,4\n${MAX_ID},2\n`;

describe("inventory apply: validation comes first, and sends nothing", () => {
  it.each([
    ["petId,quantity\n1,5\n2,-1\n", 'counts.csv line 3: invalid quantity "-1"'],
    ["petId,quantity\n1,5\n2,1.5\n", 'counts.csv line 3: invalid quantity "1.5"'],
    ["petId,quantity\n1,5\nabc,1\n", 'counts.csv line 3: invalid petId "abc"'],
    ["petId,quantity\n1,5\n1,6\n", "counts.csv line 3: duplicate petId 1 (first on line 2)"],
    ["petId,count\n1,5\n", "counts.csv line 1: the header has no quantity column"],
    ["petId,quantity\n1\n", "counts.csv line 2: missing quantity"],
  ])("refuses %j with exit 2", async (text, message) => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "apply", "counts.csv"], {
      stubs,
      files: { "counts.csv": text },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: ${message}`);
    expect(result.stderr).toContain("hint: fix the file and run again; nothing was applied\n");
    expect(result.stdout).toBe("");
    expect(stubs.calls()).toEqual([]);
  });

  it("refuses a JSON string quantity, naming the entry and line", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "apply", "-"], {
      stubs,
      stdin: '[\n  {"petId": 1, "quantity": 5},\n  {"petId": 2, "quantity": "5"}\n]\n',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'error: stdin entry 2 (line 3): invalid quantity "5" (a string): expected a JSON integer',
    );
    expect(stubs.calls()).toEqual([]);
  });

  it("says an unreadable file is a usage error", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "apply", "nope.csv"], { stubs });
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toBe(
      "error: cannot read nope.csv: no such file or directory\n" +
        "hint: give a readable CSV or JSON file, or - to read stdin\n",
    );
    expect(stubs.calls()).toEqual([]);
  });

  it.each(["0", "65", "two"])("refuses --concurrency %s", async (value) => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "apply", "--concurrency", value, "c.csv"], {
      stubs,
      files: { "c.csv": COUNTS },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("expected a whole number of requests from 1 to 64.");
    expect(stubs.calls()).toEqual([]);
  });

  it("does no request at all for a header-only file", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\r\n" },
    });
    expect(result).toEqual({
      code: 0,
      stdout: "c.csv: 0 changed, 0 unchanged, 0 failed\n",
      stderr: "",
      sleeps: [],
    });
    expect(stubs.calls()).toEqual([]);
  });
});

describe("inventory apply: plan and apply", () => {
  it("fetches once, PATCHes only what differs, and reports in file order", async () => {
    const stubs = serving([
      [1, 5],
      [MAX_ID, 2],
    ]);
    const result = await runFake(["inventory", "apply", "counts.csv"], {
      stubs,
      files: { "counts.csv": COUNTS },
    });
    expect(result).toMatchObject({ code: 0, stderr: FALLBACK_NOTE });
    expect(result.stdout).toBe(
      "counts.csv: 2 changed, 2 unchanged, 0 failed\n" +
        "changed:\n" +
        "  pet 1: 3 -> 5\n" +
        `  pet ${MAX_ID}: 1 -> 2\n`,
    );
    expect(stubs.calls().filter((call) => call.startsWith("GET"))).toEqual(["GET /v1/inventory"]);
    expect(patchBodies(stubs)).toEqual([
      '/v1/inventory/1 {"quantity":5}',
      `/v1/inventory/${MAX_ID} {"quantity":2}`,
    ]);
  });

  it("reads JSON from stdin and reports with --json, int64 ids exact", async () => {
    const stubs = serving([[MAX_ID, 7]]);
    const result = await runFake(["inventory", "apply", "--json", "-"], {
      stubs,
      stdin: `[{"petId": ${MAX_ID}, "quantity": 7}, {"petId": 2, "quantity": 0}]`,
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.replace(MAX_ID, '"max"'))).toEqual({
      changed: 1,
      unchanged: 1,
      failed: 0,
      notAttempted: 0,
      results: [
        { petId: "max", previous: 1, desired: 7, outcome: "changed" },
        { petId: 2, previous: 0, desired: 0, outcome: "unchanged" },
      ],
    });
    expect(result.stdout).toContain(`"petId": ${MAX_ID},`);
  });

  it("--dry-run prints the changes and sends no PATCH; a pet the inventory does not list would fail, as its PATCH would (exit 7)", async () => {
    const stubs = serving();
    const result = await runFake(["inventory", "apply", "--dry-run", "-"], {
      stubs,
      stdin: "petId,quantity\n1,5\n2,0\n99,4\n",
    });
    expect(result).toMatchObject({
      code: 7,
      stdout: "1\t3\t5\n",
      stderr:
        DRY_RUN_NOTE +
        "would fail:\n  pet 99: no such pet: not in the inventory the server listed\n" +
        "dry run: 1 of 3 rows would change, 1 would fail; nothing was changed\n" +
        "error: dry run: 1 of 2 changes would fail (the report lists them); nothing was changed\n" +
        "hint: a real run would apply the others and exit 7 too; fix the failing rows first, or run it as it is\n",
    });
    expect(stubs.calls()).toEqual(["GET /v1/inventory", "POST /v1/inventory/batch"]);
  });

  it("--dry-run on a terminal shows a table of pet, current and desired", async () => {
    const stubs = serving();
    const result = await runFake(["--no-color", "inventory", "apply", "--dry-run", "-"], {
      stubs,
      isTTY: true,
      stdin: "petId,quantity\n1,5\n2,4\n",
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/│ petId │ +current │ desired │/);
    expect(result.stdout).toMatch(/│ +1 │ +3 │ +5 │/);
    expect(result.stdout).toMatch(/│ +2 │ +0 │ +4 │/);
    expect(result.stdout).toContain("dry run: 2 of 2 rows would change; nothing was changed\n");
  });

  it("--max-changes refuses the whole run when more would change, after only the GET", async () => {
    const stubs = serving([], { batch: false });
    const result = await runFake(["inventory", "apply", "--max-changes", "1", "c.csv"], {
      stubs,
      files: { "c.csv": COUNTS },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "error: c.csv: 2 entries would change, more than --max-changes 1; nothing was applied\n",
    );
    expect(result.stdout).toBe("");
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
  });

  it("--max-changes lets a run through that stays within it, and applies every change", async () => {
    const stubs = serving([
      [1, 5],
      [MAX_ID, 2],
    ]);
    const result = await runFake(["inventory", "apply", "--max-changes", "2", "c.csv"], {
      stubs,
      files: { "c.csv": COUNTS },
    });
    expect(result).toMatchObject({ code: 0, stderr: FALLBACK_NOTE });
    expect(patchBodies(stubs)).toEqual([
      '/v1/inventory/1 {"quantity":5}',
      `/v1/inventory/${MAX_ID} {"quantity":2}`,
    ]);
    expect(result.stdout).toBe(
      "c.csv: 2 changed, 2 unchanged, 0 failed\n" +
        "changed:\n" +
        "  pet 1: 3 -> 5\n" +
        `  pet ${MAX_ID}: 1 -> 2\n`,
    );
  });

  it("--dry-run --json prints the report a server's dry run gives: its counts, then every row", async () => {
    const stubs = serving();
    const result = await runFake(["inventory", "apply", "--dry-run", "--json", "-"], {
      stubs,
      stdin: "petId,quantity\n1,5\n2,0\n99,4\n",
    });
    expect(result.code).toBe(7);
    expect(result.stderr.startsWith(DRY_RUN_NOTE)).toBe(true);
    expect(JSON.parse(result.stdout)).toEqual({
      dryRun: true,
      wouldChange: 1,
      unchanged: 1,
      wouldFail: 1,
      notAttempted: 0,
      results: [
        { petId: 1, previous: 3, desired: 5, outcome: "would_change" },
        { petId: 2, previous: 0, desired: 0, outcome: "unchanged" },
        {
          petId: 99,
          previous: null,
          desired: 4,
          outcome: "would_fail",
          reason: "no such pet: not in the inventory the server listed",
        },
      ],
    });
    expect(stubs.calls()).toEqual(["GET /v1/inventory", "POST /v1/inventory/batch"]);
  });

  it("--dry-run says one row in the singular (and asks the server nothing: nothing differs)", async () => {
    const stubs = serving([], { batch: false });
    const result = await runFake(["inventory", "apply", "--dry-run", "-"], {
      stubs,
      stdin: "petId,quantity\n2,0\n",
    });
    expect(result).toMatchObject({
      code: 0,
      stdout: "",
      stderr: "dry run: nothing to change (1 row is already right)\n",
    });
  });

  it("--max-changes 0 refuses one change in the singular", async () => {
    const stubs = serving([], { batch: false });
    const result = await runFake(["inventory", "apply", "--max-changes", "0", "-"], {
      stubs,
      stdin: "petId,quantity\n1,5\n",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "error: stdin: 1 entry would change, more than --max-changes 0; nothing was applied\n",
    );
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
  });

  it("stops with the usual exit code when the key is refused on the GET", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", INVENTORY_PATH)
      .reply(401, '{"code":"unauthorized","message":"invalid API key","status":401}', json);
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": COUNTS },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("error: invalid API key (unauthorized, HTTP 401)\n");
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
  });

  it("stops with exit 3 when the GET cannot get through", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", INVENTORY_PATH).reset().times(3);
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": COUNTS },
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(stubs.calls()).toEqual(Array.from({ length: 3 }, () => "GET /v1/inventory"));
  });
});

describe("inventory apply: faults during the run", () => {
  it("retries a 503 on a row and succeeds", async () => {
    const stubs = serving([[MAX_ID, 2]]);
    stubs
      .on("PATCH", patchPath(1))
      .reply(503, '{"code":"unavailable","message":"busy","status":503}', json);
    stubs.on("PATCH", patchPath(1)).reply(200, entry(1, 5), json);
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": COUNTS },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("c.csv: 2 changed, 2 unchanged, 0 failed\n");
    expect(result.sleeps).toEqual([375]);
    expect(stubs.calls().filter((call) => call === "PATCH /v1/inventory/1")).toHaveLength(2);
  });

  it("reports a row that keeps answering 503 as failed (exit 7); the others still apply", async () => {
    const stubs = serving([[MAX_ID, 2]]);
    stubs
      .on("PATCH", patchPath(1))
      .reply(503, '{"code":"unavailable","message":"busy","status":503}', json)
      .times(3);
    const result = await runFake(["inventory", "apply", "--json", "c.csv"], {
      stubs,
      files: { "c.csv": COUNTS },
    });
    expect(result.code).toBe(7);
    const report = JSON.parse(result.stdout.replace(MAX_ID, '"max"')) as Record<string, unknown>;
    expect(report).toMatchObject({ changed: 1, unchanged: 2, failed: 1 });
    expect(report.results).toEqual([
      {
        petId: 1,
        previous: 3,
        desired: 5,
        outcome: "failed",
        reason: "busy (unavailable, HTTP 503, after 3 attempts)",
        code: "unavailable",
        status: 503,
      },
      { petId: 2, previous: 0, desired: 0, outcome: "unchanged" },
      { petId: 3, previous: 4, desired: 4, outcome: "unchanged" },
      { petId: "max", previous: 1, desired: 2, outcome: "changed" },
    ]);
    expect(result.stderr).toBe(
      FALLBACK_NOTE +
        "error: 1 of 2 changes failed (the report lists them); the other 1 was applied\n" +
        "hint: run the same command again: it reads the stock again and changes only what is still different\n",
    );
  });

  it("reports a row whose connection keeps being reset as failed, not fatal", async () => {
    const stubs = serving([[MAX_ID, 2]]);
    stubs.on("PATCH", patchPath(1)).reset().times(3);
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": COUNTS },
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toBe(
      "c.csv: 1 changed, 2 unchanged, 1 failed\n" +
        "changed:\n" +
        `  pet ${MAX_ID}: 1 -> 2\n` +
        "failed:\n" +
        `  pet 1: cannot reach ${BASE_URL}/inventory/1: connection reset by the server (ECONNRESET) (after 3 attempts); it may have been applied\n`,
    );
  });

  it("reports an unknown pet (404) and a rejected row (400) as their rows' failures", async () => {
    const stubs = serving([[1, 5]]);
    stubs
      .on("PATCH", patchPath(99))
      .reply(404, '{"code":"pet_not_found","message":"no pet with petId 99","status":404}', json);
    stubs
      .on("PATCH", patchPath(3))
      .reply(400, '{"code":"invalid_body","message":"quantity too large","status":400}', json);
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\n1,5\n99,1\n3,7\n" },
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toContain(
      "failed:\n  pet 99: no such pet\n  pet 3: quantity too large (invalid_body, HTTP 400)\n",
    );
  });

  it("stops after 10 server failures in a row when the server goes away, without retrying every row: exit 3", async () => {
    const stubs = withoutBatches(new HttpStubs());
    stubs.on("GET", INVENTORY_PATH).reply(200, "[]", json);
    stubs
      .on("PATCH", /^\/v1\/inventory\/\d+$/)
      .reset()
      .persist();
    const rows = Array.from({ length: 200 }, (_, i) => `${i + 1},1`).join("\n");
    const result = await runFake(["inventory", "apply", "--concurrency", "1", "c.csv"], {
      stubs,
      files: { "c.csv": `petId,quantity\n${rows}\n` },
    });
    expect(result.code).toBe(3);
    expect(stubs.calls().filter((call) => call.startsWith("PATCH"))).toHaveLength(30);
    expect(result.stdout).toContain(
      "c.csv: 0 changed, 0 unchanged, 10 failed, 190 not attempted\n",
    );
    expect(result.stdout).toContain(
      "not attempted (190 rows: the server kept failing; run again later):\n" +
        "  pet 11: not listed -> 1\n",
    );
    expect(result.stdout).toMatch(/\n {2}pet 200: not listed -> 1\n$/);
    expect(result.stderr).toContain(
      "error: the server kept failing, so the run stopped after 10 failures in a row: 200 of 200 changes not known to be applied (10 sent without an answer, which may have been applied; 190 not attempted)\n",
    );
  });

  it("keeps at most --concurrency PATCHes in flight", async () => {
    const stubs = withoutBatches(new HttpStubs());
    stubs.on("GET", INVENTORY_PATH).reply(200, "[]", json);
    stubs
      .on("PATCH", /^\/v1\/inventory\/\d+$/)
      .reply(200, entry(1, 1), json)
      .persist();
    // Each burst of PATCHes is held until it is over, so all that may start do start.
    const held = stubs.hold();
    const rows = Array.from({ length: 12 }, (_, i) => `${i + 1},1`).join("\n");
    const result = await runFake(["inventory", "apply", "--concurrency", "3", "c.csv"], {
      stubs,
      files: { "c.csv": `petId,quantity\n${rows}\n` },
    });
    expect(result.code).toBe(0);
    expect(held.dispatched()).toBe(12);
    expect(held.mostInFlight()).toBe(3);
  });

  it("draws a progress bar on stderr only when stderr is a terminal", async () => {
    const files = { "c.csv": COUNTS };
    const patches: [string | number, number][] = [
      [1, 5],
      [MAX_ID, 2],
    ];
    const onTerminal = await runFake(["inventory", "apply", "c.csv"], {
      stubs: serving(patches),
      files,
      stderrIsTTY: true,
    });
    expect(onTerminal.code).toBe(0);
    expect(onTerminal.stderr).toContain("applying [");
    expect(onTerminal.stdout).not.toContain("applying");
    const piped = await runFake(["inventory", "apply", "c.csv"], {
      stubs: serving(patches),
      files,
    });
    expect(piped.stderr).toBe(FALLBACK_NOTE);
  });
});

describe("inventory apply: interrupted by SIGINT or SIGTERM", () => {
  /** Ten pets the inventory does not list, so every row is a change (PATCHes always 200). */
  function tenRows(): { stubs: HttpStubs; files: Record<string, string> } {
    const stubs = withoutBatches(new HttpStubs());
    stubs.on("GET", INVENTORY_PATH).reply(200, "[]", json);
    stubs
      .on("PATCH", /^\/v1\/inventory\/\d+$/)
      .reply(200, entry(1, 1), json)
      .persist();
    const rows = Array.from({ length: 10 }, (_, i) => `${i + 1},${i + 1}`).join("\n");
    return { stubs, files: { "c.csv": `petId,quantity\n${rows}\n` } };
  }

  /** Holds PATCHes; when `inFlight` are held, delivers `signal`, then lets them finish. */
  function interruptWhenInFlight(
    stubs: HttpStubs,
    interrupts: Interrupts,
    inFlight: number,
    signal: "SIGINT" | "SIGTERM",
  ) {
    const deliveries: string[] = [];
    const held = stubs.hold("PATCH", (count, gate) => {
      if (count < inFlight) return;
      deliveries.push(interrupts.deliver(signal));
      gate.release();
    });
    return { held, deliveries };
  }

  it("SIGINT: lets the PATCHes in flight finish, starts no more, reports the rest not attempted, exit 130", async () => {
    const { stubs, files } = tenRows();
    const interrupts = new Interrupts();
    const { held, deliveries } = interruptWhenInFlight(stubs, interrupts, 3, "SIGINT");
    const result = await runFake(["inventory", "apply", "--concurrency", "3", "c.csv"], {
      stubs,
      files,
      interrupts,
    });
    expect(deliveries).toEqual(["claimed"]);
    expect(result.code).toBe(130);
    expect(held.dispatched()).toBe(3);
    expect(patchBodies(stubs)).toEqual([
      '/v1/inventory/1 {"quantity":1}',
      '/v1/inventory/2 {"quantity":2}',
      '/v1/inventory/3 {"quantity":3}',
    ]);
    expect(result.stdout).toBe(
      "c.csv: 3 changed, 0 unchanged, 0 failed, 7 not attempted (interrupted by SIGINT)\n" +
        "changed:\n" +
        "  pet 1: not listed -> 1\n" +
        "  pet 2: not listed -> 2\n" +
        "  pet 3: not listed -> 3\n" +
        "not attempted (7 rows: interrupted by SIGINT; run the same command again to apply them):\n" +
        Array.from({ length: 7 }, (_, i) => `  pet ${i + 4}: not listed -> ${i + 4}\n`).join(""),
    );
    expect(result.stderr).toBe(
      FALLBACK_NOTE +
        "interrupted by SIGINT: starting no more changes; finishing those in flight, then printing the report (interrupt again to stop at once)\n" +
        "error: interrupted by SIGINT: 3 changes applied, 7 rows not attempted (the report lists them)\n" +
        "hint: run the same command again: it changes only what is still different\n",
    );
  });

  it("SIGTERM with --json: one valid JSON document, the rest not attempted, exit 143", async () => {
    const { stubs, files } = tenRows();
    const interrupts = new Interrupts();
    const { held } = interruptWhenInFlight(stubs, interrupts, 1, "SIGTERM");
    const result = await runFake(["inventory", "apply", "--concurrency", "1", "--json", "c.csv"], {
      stubs,
      files,
      interrupts,
    });
    expect(result.code).toBe(143);
    expect(held.dispatched()).toBe(1);
    const report = JSON.parse(result.stdout) as { results: unknown[] };
    expect(report).toMatchObject({
      changed: 1,
      unchanged: 0,
      failed: 0,
      notAttempted: 9,
      interruptedBy: "SIGTERM",
      interruptedDuring: "sending",
    });
    expect(report.results[0]).toEqual({
      petId: 1,
      previous: null,
      desired: 1,
      outcome: "changed",
    });
    expect(report.results.slice(1)).toEqual(
      Array.from({ length: 9 }, (_, i) => ({
        petId: i + 2,
        previous: null,
        desired: i + 2,
        outcome: "not_attempted",
        reason: "not attempted: interrupted by SIGTERM; run again to apply it",
      })),
    );
    expect(result.stderr).toContain(
      "error: interrupted by SIGTERM: 1 change applied, 9 rows not attempted (the report lists them)\n",
    );
  });

  it("stops the progress bar at the interrupt: nothing is drawn after the notice", async () => {
    const { stubs, files } = tenRows();
    const interrupts = new Interrupts();
    interruptWhenInFlight(stubs, interrupts, 2, "SIGINT");
    const result = await runFake(["inventory", "apply", "--concurrency", "2", "c.csv"], {
      stubs,
      files,
      interrupts,
      stderrIsTTY: true,
    });
    expect(result.code).toBe(130);
    const [beforeNotice, afterNotice] = result.stderr.split("interrupted by SIGINT: starting");
    expect(beforeNotice).toContain("applying [");
    expect(afterNotice).not.toContain("applying [");
  });

  it("a second signal while the writes finish is not claimed: main.ts ends the process at once", async () => {
    const { stubs, files } = tenRows();
    const interrupts = new Interrupts();
    const deliveries: string[] = [];
    stubs.hold("PATCH", (_count, gate) => {
      deliveries.push(interrupts.deliver("SIGINT"), interrupts.deliver("SIGTERM"));
      gate.release();
    });
    const result = await runFake(["inventory", "apply", "--concurrency", "1", "c.csv"], {
      stubs,
      files,
      interrupts,
    });
    expect(deliveries).toEqual(["claimed", "again"]);
    expect(result.code).toBe(130);
    // After the run, nothing holds a claim: a signal now would end the process at once.
    expect(interrupts.deliver("SIGINT")).toBe("unclaimed");
  });

  it("an interrupt with a failed row counts it apart from the rows not attempted", async () => {
    const stubs = withoutBatches(new HttpStubs());
    stubs.on("GET", INVENTORY_PATH).reply(200, "[]", json);
    stubs
      .on("PATCH", patchPath(1))
      .reply(404, '{"code":"pet_not_found","message":"no pet with petId 1","status":404}', json);
    const interrupts = new Interrupts();
    stubs.hold("PATCH", (_count, gate) => {
      interrupts.deliver("SIGINT");
      gate.release();
    });
    const result = await runFake(["inventory", "apply", "--concurrency", "1", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\n1,1\n2,2\n" },
      interrupts,
    });
    expect(result.code).toBe(130);
    expect(result.stdout).toBe(
      "c.csv: 0 changed, 0 unchanged, 1 failed, 1 not attempted (interrupted by SIGINT)\n" +
        "failed:\n  pet 1: no such pet\n" +
        "not attempted (1 row: interrupted by SIGINT; run the same command again to apply them):\n" +
        "  pet 2: not listed -> 2\n",
    );
    expect(result.stderr).toContain(
      "error: interrupted by SIGINT: 0 changes applied, 1 row not attempted, 1 failed (the report lists them)\n",
    );
  });
});

describe("inventory apply: counts in words, ASCII off a terminal", () => {
  it("says one change and one other in the singular", async () => {
    const stubs = serving([[MAX_ID, 2]]);
    stubs
      .on("PATCH", patchPath(1))
      .reply(400, '{"code":"invalid_body","message":"no","status":400}', json);
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": COUNTS },
    });
    expect(result.code).toBe(7);
    expect(result.stderr).toContain(
      "error: 1 of 2 changes failed (the report lists them); the other 1 was applied\n",
    );
  });

  it("says 1 of 1 change when the only change failed", async () => {
    const stubs = serving();
    stubs
      .on("PATCH", patchPath(1))
      .reply(400, '{"code":"invalid_body","message":"no","status":400}', json);
    const result = await runFake(["inventory", "apply", "-"], {
      stubs,
      stdin: "petId,quantity\n1,5\n",
    });
    expect(result.code).toBe(7);
    expect(result.stderr).toContain("error: 1 of 1 change failed (the report lists them)\n");
  });

  it("prints only ASCII when stdout is a pipe, and an arrow on a terminal", async () => {
    const patches: [string | number, number][] = [
      [1, 5],
      [MAX_ID, 2],
    ];
    const piped = await runFake(["inventory", "apply", "c.csv"], {
      stubs: serving(patches),
      files: { "c.csv": COUNTS },
    });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toContain("  pet 1: 3 -> 5\n");
    expect(piped.stdout).toMatch(/^[\x20-\x7e\n]*$/);
    const terminal = await runFake(["--no-color", "inventory", "apply", "c.csv"], {
      stubs: serving(patches),
      files: { "c.csv": COUNTS },
      isTTY: true,
    });
    expect(terminal.stdout).toContain("  pet 1: 3 → 5\n");
  });
});

/** Each PATCH as path, If-Match and Idempotency-Key, sorted by path. */
function patchConditions(stubs: HttpStubs) {
  return stubs.requests
    .filter((call) => call.method === "PATCH")
    .map((call) => {
      const headers = call.headers;
      return { path: call.path, ifMatch: headers["if-match"], key: headers["idempotency-key"] };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

const PRECONDITION_FAILED =
  '{"code":"precondition_failed","message":"the entry does not match If-Match","status":412}';

describe("inventory apply: conditional writes", () => {
  it("makes each PATCH conditional on the quantity it listed, each with its own key", async () => {
    const stubs = serving([
      [1, 5],
      [MAX_ID, 2],
    ]);
    const result = await runFake(["inventory", "apply", "counts.csv"], {
      stubs,
      files: { "counts.csv": COUNTS },
    });
    expect(result.code).toBe(0);
    const conditions = patchConditions(stubs);
    expect(conditions.map(({ path, ifMatch }) => ({ path, ifMatch }))).toEqual([
      { path: "/v1/inventory/1", ifMatch: '"3"' },
      { path: `/v1/inventory/${MAX_ID}`, ifMatch: '"1"' },
    ]);
    // The batch request that found no batch endpoint had key 1.
    expect(conditions.map((patch) => patch.key).sort()).toEqual([fakeKey(2), fakeKey(3)]);
  });

  it("sends no If-Match for a pet the inventory did not list (the server decides)", async () => {
    const stubs = serving([[77, 5]]);
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\n77,5\n" },
    });
    expect(result.code).toBe(0);
    expect(patchConditions(stubs)).toEqual([
      { path: "/v1/inventory/77", ifMatch: undefined, key: fakeKey(2) },
    ]);
  });

  it("reports a row changed meanwhile (412) as a conflict, not overwritten: exit 7", async () => {
    const stubs = serving([[MAX_ID, 2]]);
    stubs.on("PATCH", patchPath(1)).reply(412, PRECONDITION_FAILED, {
      headers: { "content-type": "application/json", etag: '"9"' },
    });
    const result = await runFake(["inventory", "apply", "counts.csv"], {
      stubs,
      files: { "counts.csv": COUNTS },
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toBe(
      "counts.csv: 1 changed, 2 unchanged, 1 failed (1 in conflict)\n" +
        "changed:\n" +
        `  pet ${MAX_ID}: 1 -> 2\n` +
        "conflict (changed by someone else since this run read it; not overwritten; run the same command again to apply the file over the new values, or check them first):\n" +
        "  pet 1: read 3, now 9; wanted 5\n",
    );
    expect(result.stderr).toBe(
      FALLBACK_NOTE +
        "error: 1 of 2 changes failed (the report lists them; 1 in conflict: changed by someone else since the run read it, not overwritten); the other 1 was applied\n" +
        "hint: run the same command again: it reads the stock again and changes only what is still different\n",
    );
    // A 412 is an answer, not a fault: no retry.
    expect(result.sleeps).toEqual([]);
  });

  it("says conflict in the --json results, with the current quantity when known", async () => {
    const stubs = withoutBatches(new HttpStubs());
    stubs.on("GET", INVENTORY_PATH).reply(200, INVENTORY, json);
    stubs.on("PATCH", patchPath(1)).reply(412, PRECONDITION_FAILED, {
      headers: { "content-type": "application/json", etag: '"9"' },
    });
    stubs.on("PATCH", patchPath(MAX_ID)).reply(412, PRECONDITION_FAILED, json);
    const result = await runFake(["inventory", "apply", "--json", "counts.csv"], {
      stubs,
      files: { "counts.csv": COUNTS },
    });
    expect(result.code).toBe(7);
    expect(JSON.parse(result.stdout.replace(MAX_ID, '"max"'))).toEqual({
      changed: 0,
      unchanged: 2,
      failed: 2,
      notAttempted: 0,
      results: [
        {
          petId: 1,
          previous: 3,
          desired: 5,
          outcome: "conflict",
          current: 9,
          reason: "changed to 9 since it was read; not overwritten",
          code: "precondition_failed",
          status: 412,
        },
        { petId: 2, previous: 0, desired: 0, outcome: "unchanged" },
        { petId: 3, previous: 4, desired: 4, outcome: "unchanged" },
        {
          petId: "max",
          previous: 1,
          desired: 2,
          outcome: "conflict",
          current: null,
          reason: "changed since it was read; not overwritten",
          code: "precondition_failed",
          status: 412,
        },
      ],
    });
    expect(result.stderr).toContain(
      "error: 2 of 2 changes failed (the report lists them; 2 in conflict: changed by someone else since the run read them, not overwritten)\n",
    );
  });

  it("--force writes unconditionally (no If-Match), still with a key per row", async () => {
    const stubs = serving([
      [1, 5],
      [MAX_ID, 2],
    ]);
    const result = await runFake(["inventory", "apply", "--force", "counts.csv"], {
      stubs,
      files: { "counts.csv": COUNTS },
    });
    expect(result.code).toBe(0);
    const conditions = patchConditions(stubs);
    expect(conditions.map((patch) => patch.ifMatch)).toEqual([undefined, undefined]);
    expect(conditions.map((patch) => patch.key).sort()).toEqual([fakeKey(2), fakeKey(3)]);
  });

  it("resends a row's key when its PATCH is retried after a 503", async () => {
    const stubs = withoutBatches(new HttpStubs());
    stubs.on("GET", INVENTORY_PATH).reply(200, INVENTORY, json);
    stubs
      .on("PATCH", patchPath(1))
      .reply(503, '{"code":"unavailable","message":"busy","status":503}', json);
    stubs.on("PATCH", patchPath(1)).reply(200, entry(1, 5), json);
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\n1,5\n" },
    });
    expect(result.code).toBe(0);
    expect(patchConditions(stubs)).toEqual([
      { path: "/v1/inventory/1", ifMatch: '"3"', key: fakeKey(2) },
      { path: "/v1/inventory/1", ifMatch: '"3"', key: fakeKey(2) },
    ]);
  });
});
