/**
 * `inventory apply` and `inventory adjust --file` interrupted in each phase, in-process: the
 * signal is delivered from inside the phase (a stdin that never ends, the key file read while
 * the client is made, a held GET, a held batch), so the run is always where the test says.
 * Every interrupt ends with the report and exit 130/143; rows never sent are "not attempted",
 * apart from the failed ones.
 */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { Interrupts } from "../../../src/program/interrupts.js";
import { BASE_URL, HttpStubs, KEY, runFake } from "../fake-deps.js";
import { serveBatches, stockOf } from "./batch-server.js";

const DAY = ["--ref-prefix", "till-1/2026-11-26"] as const;
const SALES = "petId,delta\n1,-1\n2,+3\n1,-2\n";

/** A stdin that hands over `text` and then never ends, delivering `signal` as it is read. */
function stdinInterrupted(text: string, interrupts: Interrupts, signal: "SIGINT" | "SIGTERM") {
  let given = false;
  return new Readable({
    read() {
      if (given) return;
      given = true;
      this.push(text);
      interrupts.deliver(signal);
    },
  });
}

/**
 * Files whose key file delivers `signal` when it is read: the run has read its file to the
 * end and is making its client, so nothing has been sent.
 */
function keyFileInterrupting(files: Record<string, string>, interrupts: Interrupts) {
  return {
    env: { PETSTORE_BASE_URL: BASE_URL, PETSTORE_API_KEY_FILE: "key.txt" },
    files: Object.defineProperty({ ...files }, "key.txt", {
      enumerable: true,
      get: () => {
        interrupts.deliver("SIGINT");
        return KEY;
      },
    }) as Record<string, string>,
  };
}

describe("interrupted while reading the file", () => {
  it("apply: the report says the file was not read to its end and nothing was sent, exit 130", async () => {
    const stubs = new HttpStubs();
    const interrupts = new Interrupts();
    const result = await runFake(["inventory", "apply", "-"], {
      stubs,
      interrupts,
      stdin: stdinInterrupted("petId,quantity\n1,5\n2,", interrupts, "SIGINT"),
    });
    expect(result.code).toBe(130);
    expect(stubs.calls()).toEqual([]);
    expect(result.stdout).toBe(
      "stdin: 0 changed, 0 unchanged, 0 failed; interrupted by SIGINT while reading the file: it was not read to its end, and nothing was sent\n",
    );
    expect(result.stderr).toBe(
      "interrupted by SIGINT: no change has been sent; stopping, then printing the report (interrupt again to stop at once)\n" +
        "error: interrupted by SIGINT while reading stdin: it was not read to its end, and nothing was sent\n" +
        "hint: run the same command again: it changes only what is still different\n",
    );
  });

  it("adjust --file --json: notAttempted null (no row is known), exit 143", async () => {
    const stubs = new HttpStubs();
    const interrupts = new Interrupts();
    const result = await runFake(["inventory", "adjust", "--file", "-", ...DAY, "--json"], {
      stubs,
      interrupts,
      stdin: stdinInterrupted("petId,delta\n1,-1\n", interrupts, "SIGTERM"),
    });
    expect(result.code).toBe(143);
    expect(stubs.calls()).toEqual([]);
    expect(JSON.parse(result.stdout)).toEqual({
      changed: 0,
      unchanged: 0,
      failed: 0,
      notAttempted: null,
      interruptedBy: "SIGTERM",
      interruptedDuring: "reading",
      results: [],
    });
    expect(result.stderr).toContain(
      "error: interrupted by SIGTERM while reading stdin: it was not read to its end, and nothing was sent\n" +
        "hint: run the same file again: this run applied no row of it\n",
    );
  });
});

describe("interrupted after the file was read, before anything was sent", () => {
  it("adjust --file: every row not attempted, none listed in the text, exit 130", async () => {
    const stubs = new HttpStubs();
    const interrupts = new Interrupts();
    const result = await runFake(["inventory", "adjust", "--file", "s.csv", ...DAY], {
      stubs,
      interrupts,
      ...keyFileInterrupting({ "s.csv": SALES }, interrupts),
    });
    expect(result.code).toBe(130);
    expect(stubs.calls()).toEqual([]);
    expect(result.stdout).toBe(
      "s.csv: 0 changed, 0 already applied (duplicate), 0 failed, 3 not attempted (interrupted by SIGINT before anything was sent)\n",
    );
    expect(result.stderr).toBe(
      "interrupted by SIGINT: no change has been sent; stopping, then printing the report (interrupt again to stop at once)\n" +
        "error: interrupted by SIGINT before anything was sent: 3 rows not attempted\n" +
        "hint: run the same file again: this run applied no row of it\n",
    );
  });

  it("adjust --file --json: every row listed as not_attempted, with its ref", async () => {
    const interrupts = new Interrupts();
    const result = await runFake(["inventory", "adjust", "--file", "s.csv", ...DAY, "--json"], {
      interrupts,
      ...keyFileInterrupting({ "s.csv": SALES }, interrupts),
    });
    expect(result.code).toBe(130);
    const report = JSON.parse(result.stdout) as { results: unknown[] };
    expect(report).toMatchObject({
      changed: 0,
      unchanged: 0,
      failed: 0,
      notAttempted: 3,
      interruptedBy: "SIGINT",
      interruptedDuring: "preparing",
    });
    expect(report.results[2]).toEqual({
      row: 3,
      line: 4,
      petId: 1,
      delta: -2,
      ref: "till-1/2026-11-26:3",
      outcome: "not_attempted",
      previous: null,
      quantity: null,
      reason:
        "not attempted: interrupted by SIGINT before anything was sent; run again to apply it",
    });
  });

  it("apply, while the stock is fetched: every row not attempted, no write, exit 143", async () => {
    const stubs = new HttpStubs();
    const interrupts = new Interrupts();
    // The GET is never answered: the signal comes while the run waits for it.
    stubs.on("GET", "/v1/inventory").hang(() => interrupts.deliver("SIGTERM"));
    const result = await runFake(["inventory", "apply", "--json", "c.csv"], {
      stubs,
      interrupts,
      files: { "c.csv": "petId,quantity\n1,5\n2,0\n" },
    });
    expect(result.code).toBe(143);
    // That GET is all the run sent.
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
    expect(JSON.parse(result.stdout)).toEqual({
      changed: 0,
      unchanged: 0,
      failed: 0,
      notAttempted: 2,
      interruptedBy: "SIGTERM",
      interruptedDuring: "preparing",
      results: [1, 2].map((petId) => ({
        petId,
        previous: null,
        desired: petId === 1 ? 5 : 0,
        outcome: "not_attempted",
        reason:
          "not attempted: interrupted by SIGTERM before anything was sent; run again to apply it",
      })),
    });
    expect(result.stderr).toBe(
      "interrupted by SIGTERM: no change has been sent; stopping, then printing the report (interrupt again to stop at once)\n" +
        "error: interrupted by SIGTERM before anything was sent: 2 rows not attempted\n" +
        "hint: run the same command again: it changes only what is still different\n",
    );
  });
});

describe("a dry run interrupted between batches", () => {
  it("adjust --file --dry-run: what was evaluated, the rest not attempted; nothing changed, exit 130", async () => {
    const stubs = new HttpStubs();
    const server = serveBatches(stubs, stockOf(1, 100_000), { listed: false });
    const interrupts = new Interrupts();
    stubs.hold("POST", (_count, gate) => {
      interrupts.deliver("SIGINT");
      gate.release();
    });
    const rows = Array.from({ length: 1500 }, () => "1,-1\n").join("");
    const result = await runFake(["inventory", "adjust", "--file", "s.csv", ...DAY, "--dry-run"], {
      stubs,
      files: { "s.csv": `petId,delta\n${rows}` },
      interrupts,
    });
    expect(result.code).toBe(130);
    expect(server.requests).toEqual([expect.objectContaining({ dryRun: true, size: 1000 })]);
    expect(server.stock.get(1n)).toBe(100_000);
    expect(result.stdout.split("\n")[0]).toBe(
      "dry run of s.csv: 1000 of 1500 rows would change, 0 already applied (duplicate), 0 would fail, 500 not attempted (interrupted by SIGINT); nothing was changed",
    );
    expect(result.stderr).toContain(
      "error: interrupted by SIGINT: the dry run stopped, 500 rows not evaluated; nothing was changed\n" +
        "hint: run the dry run again to see every row\n",
    );
  });
});

describe("interrupted while the last batch was in flight", () => {
  it.each([
    [
      "adjust --file",
      ["inventory", "adjust", "--file", "s.csv", ...DAY],
      "error: interrupted by SIGINT once every row was sent: 2 changes applied (the report lists them)\n" +
        "hint: every row was sent before the run stopped: nothing is left to do\n",
    ],
    [
      "adjust --file --dry-run",
      ["inventory", "adjust", "--file", "s.csv", ...DAY, "--dry-run"],
      "error: interrupted by SIGINT once every row was evaluated: nothing was changed\n" +
        "hint: every row was evaluated before the run stopped: the report is whole\n",
    ],
  ])(
    "%s: says every row was sent, and that nothing is left, exit 130",
    async (_name, args, end) => {
      const stubs = new HttpStubs();
      serveBatches(stubs, stockOf(2, 10), { listed: false });
      const interrupts = new Interrupts();
      stubs.hold("POST", (_count, gate) => {
        interrupts.deliver("SIGINT");
        gate.release();
      });
      const result = await runFake(args, {
        stubs,
        files: { "s.csv": "petId,delta\n1,-1\n2,-2\n" },
        interrupts,
      });
      expect(result.code).toBe(130);
      expect(result.stderr.endsWith(end)).toBe(true);
    },
  );
});

describe("the hint after an adjust --file with failed rows", () => {
  it("with no row applied: says so, and speaks of no rows applied", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(2, 0), { listed: false });
    const result = await runFake(["inventory", "adjust", "--file", "s.csv", ...DAY], {
      stubs,
      files: { "s.csv": "petId,delta\n1,-1\n2,-2\n" },
    });
    expect(result.code).toBe(7);
    expect(result.stderr).toBe(
      "error: 2 of 2 rows failed (the report lists them); no row was applied\n" +
        "hint: fix the failed rows and run the file again: nothing of it was applied\n",
    );
  });

  it("after --no-ref rows applied, the hint never says to run the file again", async () => {
    const stubs = new HttpStubs();
    serveBatches(stubs, stockOf(2, 0), { listed: false });
    const result = await runFake(["inventory", "adjust", "--file", "s.csv", "--no-ref"], {
      stubs,
      files: { "s.csv": "petId,delta\n1,+1\n2,-2\n" },
    });
    expect(result.code).toBe(7);
    expect(result.stderr).toBe(
      "error: 1 of 2 rows failed (the report lists them); the other 1 was applied\n" +
        "hint: the rows applied have no ref, so running this file again would apply them twice: put the failed ones, fixed, in a new file of their own\n",
    );
  });
});
