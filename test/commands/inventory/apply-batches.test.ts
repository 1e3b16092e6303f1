/**
 * `inventory apply` through the batch endpoint, in-process on HTTP stubs: requests of up to
 * 1,000 changes with ifQuantity, the batch outcomes in the report, --atomic, the dry run the
 * server evaluates, progress per request, the fallback to one PATCH per row when the server
 * has no batch endpoint, a failing server and an interrupt between batches.
 */
import { describe, expect, it } from "vitest";
import { Interrupts } from "../../../src/program/interrupts.js";
import { fakeKey, HttpStubs, json, ORIGIN, runFake } from "../fake-deps.js";
import { serveBatches, stockOf } from "./batch-server.js";

const BATCH_PATH = "/v1/inventory/batch";
const FALLBACK_NOTE = (status: number) =>
  `note: the server has no batch endpoint (POST /inventory/batch answered ${status}): applying one PATCH per row instead\n`;

/** A counts file setting pets 1..count to `quantity`. */
function counts(count: number, quantity: number): string {
  return `petId,quantity\n${Array.from({ length: count }, (_, i) => `${i + 1},${quantity}\n`).join("")}`;
}

/** The bodies of the batch requests, parsed (ids are small here). */
function batchBodies(stubs: HttpStubs) {
  return stubs.requests
    .filter((call) => call.method === "POST")
    .map(
      (call) =>
        JSON.parse(call.body) as {
          atomic: boolean;
          dryRun: boolean;
          changes: Record<string, number>[];
        },
    );
}

describe("inventory apply through the batch endpoint", () => {
  it("sends the rows that differ in requests of up to 1,000, each change conditional on what it read", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(2600, 1), { times: 3 });
    // Rows 1..2500 change; 2501..2600 already hold 1.
    const file =
      counts(2500, 7) + Array.from({ length: 100 }, (_, i) => `${2501 + i},1\n`).join("");
    const result = await runFake(["inventory", "apply", "--json", "c.csv"], {
      stubs,
      files: { "c.csv": file },
    });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(server.requests).toEqual([
      { atomic: false, dryRun: false, size: 1000, key: fakeKey(1) },
      { atomic: false, dryRun: false, size: 1000, key: fakeKey(2) },
      { atomic: false, dryRun: false, size: 500, key: fakeKey(3) },
    ]);
    expect(batchBodies(stubs)[0]?.changes[0]).toEqual({ petId: 1, quantity: 7, ifQuantity: 1 });
    const report = JSON.parse(result.stdout) as { results: unknown[] };
    expect(report).toMatchObject({ changed: 2500, unchanged: 100, failed: 0 });
    expect(report.results[0]).toEqual({ petId: 1, previous: 1, desired: 7, outcome: "changed" });
    expect(report.results[2599]).toEqual({
      petId: 2600,
      previous: 1,
      desired: 1,
      outcome: "unchanged",
    });
    expect(server.stock.get(2500n)).toBe(7);
  });

  it("--force leaves ifQuantity out; a pet the list did not show never has one", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(2, 1));
    const result = await runFake(["inventory", "apply", "--force", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\n1,5\n99,2\n" },
    });
    expect(result.code).toBe(7);
    expect(batchBodies(stubs)[0]?.changes).toEqual([
      { petId: 1, quantity: 5 },
      { petId: 99, quantity: 2 },
    ]);
  });

  it("reports an unknown pet and a pet changed meanwhile from the results: exit 7", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", "/v1/inventory")
      .reply(
        200,
        '[{"petId":1,"quantity":3,"status":"available"},{"petId":2,"quantity":4,"status":"available"}]',
        json,
      );
    stubs.on("POST", BATCH_PATH).reply(
      200,
      JSON.stringify({
        changed: 1,
        unchanged: 0,
        failed: 2,
        notAttempted: 0,
        results: [
          { petId: 1, outcome: "conflict", previous: 9, quantity: 9, status: "available" },
          { petId: 2, outcome: "changed", previous: 4, quantity: 6, status: "available" },
          { petId: 99, outcome: "not_found", previous: null, quantity: null, status: null },
        ],
      }),
      json,
    );
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\n1,5\n2,6\n99,1\n" },
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toBe(
      "c.csv: 1 changed, 0 unchanged, 2 failed (1 in conflict)\n" +
        "changed:\n  pet 2: 4 -> 6\n" +
        "conflict (changed by someone else since this run read it; not overwritten; run the same command again to apply the file over the new values, or check them first):\n" +
        "  pet 1: read 3, now 9; wanted 5\n" +
        "failed:\n  pet 99: no such pet\n",
    );
    expect(result.stderr).toBe(
      "error: 2 of 3 changes failed (the report lists them; 1 in conflict: changed by someone else since the run read it, not overwritten); the other 1 was applied\n" +
        // Pet 99 fails again until the row is fixed: running again alone would not do.
        "hint: fix or remove the failed rows (the report says why each failed), then run it again: it changes only what is still different\n",
    );
  });

  it("says in --json which rows failed and the server's word for why", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(1, 3));
    const result = await runFake(["inventory", "apply", "--json", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\n1,5\n99,1\n" },
    });
    expect(result.code).toBe(7);
    expect(JSON.parse(result.stdout)).toEqual({
      changed: 1,
      unchanged: 0,
      failed: 1,
      notAttempted: 0,
      results: [
        { petId: 1, previous: 3, desired: 5, outcome: "changed" },
        {
          petId: 99,
          previous: null,
          desired: 1,
          outcome: "failed",
          reason: "no such pet",
          code: "not_found",
        },
      ],
    });
  });

  it("draws the progress bar per request, only when stderr is a terminal", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(1500, 0), { times: 2 });
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": counts(1500, 2) },
      stderrIsTTY: true,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("applying [");
    expect(result.stderr).toContain("/1500 changes, 0 failed");
  });

  it("a retried batch (503, then 200) resends its key: applied once", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("POST", BATCH_PATH)
      .reply(503, '{"code":"unavailable","message":"database busy","status":503}', {
        headers: { "content-type": "application/json", "retry-after": "1" },
      });
    const server = serveBatches(stubs, stockOf(2, 0));
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": counts(2, 4) },
    });
    expect(result.code).toBe(0);
    expect(result.sleeps).toEqual([1000]);
    const keys = stubs.requests
      .filter((call) => call.method === "POST")
      .map((call) => call.headers["idempotency-key"]);
    expect(keys).toEqual([fakeKey(1), fakeKey(1)]);
    expect(server.stock.get(2n)).toBe(4);
  });
});

describe("inventory apply --atomic", () => {
  it("sends the whole file as one atomic batch", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(2500, 0));
    const result = await runFake(["inventory", "apply", "--atomic", "c.csv"], {
      stubs,
      files: { "c.csv": counts(2500, 3) },
    });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(server.requests).toEqual([{ atomic: true, dryRun: false, size: 2500, key: fakeKey(1) }]);
    expect(result.stdout).toMatch(/^c\.csv: 2500 changed, 0 unchanged, 0 failed\n/);
  });

  it("a rejected batch is exit 7: nothing changed, and the report says which rows failed", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(2, 0));
    const result = await runFake(["inventory", "apply", "--atomic", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\n1,5\n424242,1\n2,0\n" },
    });
    expect(result.code).toBe(7);
    expect([...server.stock.values()]).toEqual([0, 0]);
    expect(result.stdout).toBe(
      "c.csv: 0 changed, 1 unchanged, 2 failed (the atomic batch was rejected for 1 of them: nothing was changed)\n" +
        "failed:\n  pet 424242: no such pet\n" +
        "not applied (1 row: the batch was atomic and the rows above failed; fix them and run again):\n" +
        "  pet 1: 0 -> 5\n",
    );
    expect(result.stderr).toBe(
      "error: the atomic batch was rejected: 1 of 2 changes failed (the report lists them); nothing was changed\n" +
        "hint: fix or remove the failed rows and run again (without --atomic the other rows would be applied)\n",
    );
  });

  it("--json of a rejected batch: every row that would have changed is failed, batch_rejected", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(1, 0));
    const result = await runFake(["inventory", "apply", "--atomic", "--json", "-"], {
      stubs,
      stdin: "petId,quantity\n1,5\n99,1\n",
    });
    expect(result.code).toBe(7);
    expect(JSON.parse(result.stdout)).toEqual({
      changed: 0,
      unchanged: 0,
      failed: 2,
      notAttempted: 0,
      results: [
        {
          petId: 1,
          previous: 0,
          desired: 5,
          outcome: "failed",
          reason: "not applied: the batch was atomic and other rows failed",
          code: "batch_rejected",
        },
        {
          petId: 99,
          previous: null,
          desired: 1,
          outcome: "failed",
          reason: "no such pet",
          code: "not_found",
        },
      ],
    });
  });

  it("refuses more than 10,000 changes before sending any (exit 2)", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", "/v1/inventory").reply(200, "[]", json);
    const result = await runFake(["inventory", "apply", "--atomic", "c.csv"], {
      stubs,
      files: { "c.csv": counts(10_001, 1) },
    });
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toBe(
      "error: c.csv: 10001 entries would change, more than the 10000 one atomic batch can hold; nothing was applied\n" +
        "hint: split the file into parts of at most 10000 changes, or run without --atomic (requests of 1000 changes, each applied alone)\n",
    );
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
  });

  it("against a server without the batch endpoint: exit 2, nothing applied, no PATCH", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", "/v1/inventory").reply(200, "[]", json);
    stubs
      .on("POST", BATCH_PATH)
      .reply(404, '{"code":"not_found","message":"no route","status":404}', json);
    const result = await runFake(["inventory", "apply", "--atomic", "c.csv"], {
      stubs,
      files: { "c.csv": counts(3, 1) },
    });
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toBe(
      "error: --atomic needs the batch endpoint, and the server has no batch endpoint (POST /inventory/batch answered 404); nothing was applied\n" +
        "hint: without --atomic the rows are applied one by one (each alone, not all or none); or use a server that has POST /inventory/batch\n",
    );
    expect(stubs.calls()).toEqual(["GET /v1/inventory", "POST /v1/inventory/batch"]);
  });
});

describe("inventory apply --dry-run through the batch endpoint", () => {
  it("asks the server in the same batches (dryRun) and exits 7 when a row would fail, as the run would", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(3, 1));
    const result = await runFake(["inventory", "apply", "--dry-run", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\n1,5\n2,1\n424242,3\n" },
    });
    expect(result.code).toBe(7);
    expect(server.requests).toEqual([{ atomic: false, dryRun: true, size: 2, key: fakeKey(1) }]);
    expect([...server.stock.values()]).toEqual([1, 1, 1]);
    expect(result.stdout).toBe("1\t1\t5\n");
    expect(result.stderr).toBe(
      "would fail:\n  pet 424242: no such pet\n" +
        "dry run: 1 of 3 rows would change, 1 would fail; nothing was changed\n" +
        "error: dry run: 1 of 2 changes would fail (the report lists them); nothing was changed\n" +
        "hint: a real run would apply the others and exit 7 too; fix the failing rows first, or run it as it is\n",
    );
  });

  it("exits 0 with the plan when every change would apply", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(3, 1));
    const result = await runFake(["inventory", "apply", "--dry-run", "c.csv"], {
      stubs,
      files: { "c.csv": "petId,quantity\n1,5\n2,1\n3,0\n" },
    });
    expect(result).toEqual({
      code: 0,
      stdout: "1\t1\t5\n3\t1\t0\n",
      stderr: "dry run: 2 of 3 rows would change; nothing was changed\n",
      sleeps: [],
    });
  });

  it("--json: wouldChange, unchanged, wouldFail and every row", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(2, 1));
    const result = await runFake(["inventory", "apply", "--dry-run", "--json", "-"], {
      stubs,
      stdin: "petId,quantity\n1,5\n2,1\n99,4\n",
    });
    expect(result.code).toBe(7);
    expect(JSON.parse(result.stdout)).toEqual({
      dryRun: true,
      wouldChange: 1,
      unchanged: 1,
      wouldFail: 1,
      notAttempted: 0,
      results: [
        { petId: 1, previous: 1, desired: 5, outcome: "would_change" },
        { petId: 2, previous: 1, desired: 1, outcome: "unchanged" },
        {
          petId: 99,
          previous: null,
          desired: 4,
          outcome: "would_fail",
          reason: "no such pet",
          code: "not_found",
        },
      ],
    });
  });

  it("on a terminal: the table of changes, the rows that would fail, the summary", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(1, 1));
    const result = await runFake(["--no-color", "inventory", "apply", "--dry-run", "-"], {
      stubs,
      isTTY: true,
      stdin: "petId,quantity\n1,5\n99,4\n",
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toMatch(/│ petId │ current │ desired │/);
    expect(result.stdout).toMatch(/│ +1 │ +1 │ +5 │/);
    expect(result.stdout).toContain(
      "would fail:\n  pet 99: no such pet\ndry run: 1 of 2 rows would change, 1 would fail; nothing was changed\n",
    );
  });

  it("--atomic: the server's verdict on the batch as a whole", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(1, 1));
    const result = await runFake(["inventory", "apply", "--dry-run", "--atomic", "-"], {
      stubs,
      stdin: "petId,quantity\n1,5\n99,4\n",
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "would fail:\n" +
        "  pet 1: would not be applied: the batch is atomic and other rows would fail\n" +
        "  pet 99: no such pet\n" +
        "dry run: the atomic batch would be rejected (1 of 2 changes would fail), so nothing would change; nothing was changed\n" +
        "error: dry run: 1 of 2 changes would fail, so the atomic batch would be rejected; nothing was changed\n" +
        "hint: fix or remove the failing rows first: with --atomic nothing is applied while one fails\n",
    );
  });

  it("over --max-changes prints the dry run, then exits 2 as the run would", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(2, 1));
    const result = await runFake(["inventory", "apply", "--dry-run", "--max-changes", "1", "-"], {
      stubs,
      stdin: counts(2, 5),
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("1\t1\t5\n2\t1\t5\n");
    expect(result.stderr).toBe(
      "dry run: 2 of 2 rows would change; nothing was changed\n" +
        "error: dry run: 2 entries would change, more than --max-changes 1: a real run would refuse and apply nothing\n" +
        "hint: if the changes are expected, raise --max-changes\n",
    );
  });
});

describe("inventory apply against a server without the batch endpoint", () => {
  it.each([404, 405])(
    "falls back to one PATCH per row when the first batch answers %i, and says so once",
    async (status) => {
      const stubs = new HttpStubs();
      stubs
        .on("GET", "/v1/inventory")
        .reply(200, '[{"petId":1,"quantity":0,"status":"sold"}]', json);
      stubs.on("POST", BATCH_PATH).reply(status, "");
      for (const petId of [1, 2, 3]) {
        stubs
          .on("PATCH", `/v1/inventory/${petId}`)
          .reply(200, `{"petId":${petId},"quantity":4,"status":"sold"}`, json);
      }
      const result = await runFake(["inventory", "apply", "c.csv"], {
        stubs,
        files: { "c.csv": counts(3, 4) },
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(FALLBACK_NOTE(status));
      expect(stubs.calls().filter((call) => call.startsWith("POST"))).toHaveLength(1);
      expect(stubs.calls().filter((call) => call.startsWith("PATCH"))).toHaveLength(3);
      expect(result.stdout).toContain("c.csv: 3 changed, 0 unchanged, 0 failed\n");
    },
  );
});

describe("inventory apply when the server fails", () => {
  it("a first batch that keeps failing is the error itself (exit 3): nothing was applied, no report", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", "/v1/inventory").reply(200, "[]", json);
    stubs
      .on("POST", BATCH_PATH)
      .reply(503, '{"code":"unavailable","message":"database busy","status":503}', json)
      .times(3);
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": counts(5, 1) },
    });
    expect(result).toMatchObject({ code: 3, stdout: "" });
    expect(result.stderr).toContain("error: database busy (unavailable, HTTP 503)\n");
  });

  it("a read-only key is exit 4 on the first batch, before anything is applied", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", "/v1/inventory").reply(200, "[]", json);
    stubs
      .on("POST", BATCH_PATH)
      .reply(403, '{"code":"forbidden","message":"this key is read-only","status":403}', json);
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": counts(2, 1) },
    });
    expect(result).toMatchObject({ code: 4, stdout: "" });
    expect(result.stderr).toContain("error: this key is read-only (forbidden, HTTP 403)\n");
  });

  it("a later batch that keeps failing stops the run: its rows failed, the rest not attempted, exit 3 as the server's failure", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(2500, 0));
    stubs
      .on("POST", BATCH_PATH)
      .reply(503, '{"code":"unavailable","message":"database busy","status":503}', json)
      .times(3);
    const result = await runFake(["inventory", "apply", "--json", "c.csv"], {
      stubs,
      files: { "c.csv": counts(2500, 1) },
    });
    expect(result.code).toBe(3);
    expect(server.requests).toHaveLength(1);
    const report = JSON.parse(result.stdout) as { results: { reason?: string }[] };
    expect(report).toMatchObject({ changed: 1000, unchanged: 0, failed: 1000, notAttempted: 500 });
    expect(report.results[1000]?.reason).toBe(
      "database busy (unavailable, HTTP 503, after 3 attempts)",
    );
    expect(report.results[2000]?.reason).toBe(
      "not attempted: the server kept failing; run again later",
    );
    expect(result.stderr).toBe(
      "error: a batch request failed (database busy (unavailable, HTTP 503, after 3 attempts)), so the run stopped: 1500 of 2500 changes not applied (1000 failed, 500 not attempted); the other 1000 were applied\n" +
        "hint: run the same command again: it reads the stock again and changes only what is still different\n",
    );
  });

  it("a later batch without an answer: its rows may have been applied, and are never said not to be; exit 3", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(2500, 0));
    stubs.on("POST", BATCH_PATH).hang();
    const result = await runFake(
      ["--timeout", "300", "--retries", "0", "inventory", "apply", "--json", "c.csv"],
      { stubs, files: { "c.csv": counts(2500, 1) } },
    );
    expect(result.code).toBe(3);
    expect(server.requests).toHaveLength(1);
    const report = JSON.parse(result.stdout) as {
      results: { reason?: string; unanswered?: boolean }[];
    };
    expect(report).toMatchObject({ changed: 1000, unchanged: 0, failed: 1000, notAttempted: 500 });
    const unanswered = `POST ${ORIGIN}/v1/inventory/batch timed out: no answer within 300 ms; it may have been applied`;
    expect(report.results[1000]).toMatchObject({ reason: unanswered, unanswered: true });
    expect(report.results[1999]).toMatchObject({ reason: unanswered, unanswered: true });
    // A row the server answered for carries no such flag.
    expect(report.results[0]).not.toHaveProperty("unanswered");
    expect(result.stderr).toBe(
      `error: a batch request failed (${unanswered}), so the run stopped: 1500 of 2500 changes not known to be applied (1000 sent without an answer, which may have been applied; 500 not attempted); the other 1000 were applied\n` +
        "hint: run the same command again: it reads the stock again and changes only what is still different\n",
    );
  });
});

describe("inventory apply whose only batch gets no answer", () => {
  it("reports its rows as maybe applied, never as not applied: exit 3 after the report", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", "/v1/inventory")
      .reply(200, '[{"petId":1,"quantity":3,"status":"available"}]', json);
    stubs.on("POST", BATCH_PATH).hang();
    const result = await runFake(
      ["--timeout", "300", "--retries", "0", "inventory", "apply", "c.csv"],
      { stubs, files: { "c.csv": "petId,quantity\n1,5\n" } },
    );
    expect(result.code).toBe(3);
    const unanswered = `POST ${ORIGIN}/v1/inventory/batch timed out: no answer within 300 ms; it may have been applied`;
    expect(result.stdout).toBe(
      `c.csv: 0 changed, 0 unchanged, 1 failed\nfailed:\n  pet 1: ${unanswered}\n`,
    );
    expect(result.stderr).toBe(
      `error: a batch request failed (${unanswered}), so the run stopped: 1 of 1 change not known to be applied (1 sent without an answer, which may have been applied)\n` +
        "hint: run the same command again: it reads the stock again and changes only what is still different\n",
    );
  });
});

describe("inventory apply interrupted between batches", () => {
  it("SIGINT: the batch in flight finishes, no other is sent, the rest not attempted, exit 130", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(2500, 0));
    const interrupts = new Interrupts();
    const held = stubs.hold("POST", (_count, gate) => {
      interrupts.deliver("SIGINT");
      gate.release();
    });
    const result = await runFake(["inventory", "apply", "c.csv"], {
      stubs,
      files: { "c.csv": counts(2500, 1) },
      interrupts,
    });
    expect(result.code).toBe(130);
    expect(held.dispatched()).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(result.stdout).toMatch(
      /^c\.csv: 1000 changed, 0 unchanged, 0 failed, 1500 not attempted \(interrupted by SIGINT\)\n/,
    );
    expect(result.stdout).toContain(
      "not attempted (1500 rows: interrupted by SIGINT; run the same command again to apply them):\n  pet 1001: 0 -> 1\n",
    );
    expect(result.stderr).toBe(
      "interrupted by SIGINT: starting no more changes; finishing those in flight, then printing the report (interrupt again to stop at once)\n" +
        "error: interrupted by SIGINT: 1000 changes applied, 1500 rows not attempted (the report lists them)\n" +
        "hint: run the same command again: it changes only what is still different\n",
    );
  });
});
