/**
 * `inventory apply` interrupted, end to end: the real CLI against the real server, through a
 * proxy that holds each write (a batch, or a PATCH) until the test lets it go. The signal is
 * sent while the first write is in flight, and that write is released only once the CLI says
 * it took the signal: no timing guesses. Through the batch endpoint the batch in flight
 * finishes and no other is sent; against a server without it, the PATCH in flight finishes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { tempDir } from "../support/temp-dir.js";
import { runCli, spawnCli } from "./support/cli.js";
import { startFakeServer } from "./support/fake-server.js";
import { startHoldingProxy, type HoldingProxy } from "./support/proxies.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

/** Pets 1..PETS: three batches of up to 1,000 changes. */
const PETS = 2_500;
/** The first batch: pets 1..1000. */
const FIRST_BATCH = 1_000;
/** Against a server without the batch endpoint, pets 1..FEW only (one PATCH each). */
const FEW = 12;
const files = tempDir("petstore-apply-interrupt-");
let server: RunningServer | undefined;
let proxy: HoldingProxy | undefined;

beforeAll(async () => {
  server = await startServer({
    seed: Array.from({ length: PETS }, (_, i) => ({
      petId: i + 1,
      name: `Pet ${i + 1}`,
      status: "available" as const,
      quantity: 0,
    })),
  });
});
afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
});
afterAll(async () => {
  await server?.stop();
  files.remove();
});

function serverEnv(): Record<string, string> {
  if (server === undefined) throw new Error("the server did not start");
  return { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: API_KEY };
}

/** The quantity of every pet, from `inventory list --json`. */
async function quantities(): Promise<Map<number, number>> {
  const result = await runCli(["inventory", "list", "--json"], { env: serverEnv() });
  expect(result.code).toBe(0);
  const items = JSON.parse(result.stdout) as { petId: number; quantity: number }[];
  return new Map(items.map((item) => [item.petId, item.quantity]));
}

/** Sets pets 1..`count` to `quantity`, one line per pet. */
function countsFile(name: string, quantity: number, count: number): string {
  const path = join(files.dir, name);
  const rows = Array.from({ length: count }, (_, i) => `${i + 1},${quantity}\n`).join("");
  writeFileSync(path, `petId,quantity\n${rows}`);
  return path;
}

/** Runs apply through a holding proxy and sends `signal` while the first write is held. */
async function interruptedApply(
  signal: "SIGINT" | "SIGTERM",
  args: readonly string[],
  withoutBatchRoute = false,
) {
  const held = await startHoldingProxy(serverEnv().PETSTORE_BASE_URL ?? "", { withoutBatchRoute });
  proxy = held;
  const cli = spawnCli(["inventory", "apply", "--concurrency", "1", ...args], {
    env: { PETSTORE_BASE_URL: held.url, PETSTORE_API_KEY: API_KEY },
  });
  await held.writesHeld(1);
  cli.process.kill(signal);
  await cli.stderrContains(`interrupted by ${signal}: starting no more changes`);
  held.release();
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr(), writes: held.writes };
}

interface Report {
  changed: number;
  unchanged: number;
  failed: number;
  results: { petId: number; previous: number | null; outcome: string; reason?: string }[];
}

describe("inventory apply interrupted, through the batch endpoint", () => {
  it("SIGINT: finishes the batch in flight, sends no other, reports the rows not attempted, exits 130", async () => {
    const path = countsFile("sigint.csv", 5, PETS);
    const result = await interruptedApply("SIGINT", [path]);
    expect(result.code).toBe(130);
    expect(result.writes).toEqual(["POST /v1/inventory/batch"]);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe(
      `${path}: ${FIRST_BATCH} changed, 0 unchanged, 0 failed, ${PETS - FIRST_BATCH} not attempted (interrupted by SIGINT)`,
    );
    expect(result.stdout).toContain("changed:\n  pet 1: 0 -> 5\n");
    expect(result.stdout).toContain(
      `not attempted (${PETS - FIRST_BATCH} rows: interrupted by SIGINT; run the same command again to apply them):\n  pet ${FIRST_BATCH + 1}: 0 -> 5\n`,
    );
    expect(result.stderr).toContain(
      `error: interrupted by SIGINT: ${FIRST_BATCH} changes applied, ${PETS - FIRST_BATCH} rows not attempted (the report lists them)\n`,
    );
    const after = await quantities();
    expect([...after.values()].filter((quantity) => quantity === 5)).toHaveLength(FIRST_BATCH);
    expect(after.get(FIRST_BATCH)).toBe(5);
    expect(after.get(FIRST_BATCH + 1)).toBe(0);

    // A re-run picks up exactly the rows that were not attempted.
    const again = await runCli(["inventory", "apply", "--json", path], { env: serverEnv() });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      changed: PETS - FIRST_BATCH,
      unchanged: FIRST_BATCH,
      failed: 0,
    });
    expect([...(await quantities()).values()].every((quantity) => quantity === 5)).toBe(true);
  });

  it("SIGTERM with --json: one JSON document matching the server's state, not attempted apart from failed, exits 143", async () => {
    const path = countsFile("sigterm.csv", 9, PETS);
    const result = await interruptedApply("SIGTERM", ["--json", path]);
    expect(result.code).toBe(143);
    expect(result.writes).toEqual(["POST /v1/inventory/batch"]);
    const report = JSON.parse(result.stdout) as Report;
    expect(report).toMatchObject({
      changed: FIRST_BATCH,
      unchanged: 0,
      failed: 0,
      notAttempted: PETS - FIRST_BATCH,
      interruptedBy: "SIGTERM",
      interruptedDuring: "sending",
    });
    expect(report.results[0]).toEqual({ petId: 1, previous: 5, desired: 9, outcome: "changed" });
    for (const row of report.results.slice(FIRST_BATCH)) {
      expect(row).toMatchObject({
        outcome: "not_attempted",
        reason: "not attempted: interrupted by SIGTERM; run again to apply it",
      });
    }
    const after = await quantities();
    for (const row of report.results) {
      expect(after.get(row.petId)).toBe(row.outcome === "changed" ? 9 : 5);
    }
  });
});

describe("inventory apply interrupted, against a server without the batch endpoint", () => {
  it("SIGINT: finishes the PATCH in flight, reports it and the rows not attempted, exits 130", async () => {
    const before = await quantities();
    const was = (petId: number) => before.get(petId) ?? 0;
    const path = countsFile("sigint-patch.csv", 7, FEW);
    const result = await interruptedApply("SIGINT", [path], true);
    expect(result.code).toBe(130);
    expect(result.writes).toEqual(["PATCH /v1/inventory/1"]);
    expect(result.stdout).toBe(
      `${path}: 1 changed, 0 unchanged, 0 failed, ${FEW - 1} not attempted (interrupted by SIGINT)\n` +
        `changed:\n  pet 1: ${was(1)} -> 7\n` +
        `not attempted (${FEW - 1} rows: interrupted by SIGINT; run the same command again to apply them):\n` +
        Array.from({ length: FEW - 1 }, (_, i) => `  pet ${i + 2}: ${was(i + 2)} -> 7\n`).join(""),
    );
    expect(result.stderr).toBe(
      "note: the server has no batch endpoint (POST /inventory/batch answered 404): applying one PATCH per row instead\n" +
        "interrupted by SIGINT: starting no more changes; finishing those in flight, then printing the report (interrupt again to stop at once)\n" +
        `error: interrupted by SIGINT: 1 change applied, ${FEW - 1} rows not attempted (the report lists them)\n` +
        "hint: run the same command again: it changes only what is still different\n",
    );
    const after = await quantities();
    expect(Array.from({ length: FEW }, (_, i) => after.get(i + 1))).toEqual([
      7,
      ...Array.from({ length: FEW - 1 }, (_, i) => was(i + 2)),
    ]);
  });
});

describe("other commands on a signal", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)("%s ends inventory list at once with %i", async (signal, code) => {
    const waiting = await startFakeServer(() => undefined); // never answers
    try {
      const cli = spawnCli(["inventory", "list"], {
        env: { PETSTORE_BASE_URL: waiting.url, PETSTORE_API_KEY: API_KEY },
      });
      await eventually("the list's GET at the server", () => waiting.requests.length > 0);
      cli.process.kill(signal);
      expect(await cli.exited).toBe(code);
      expect(cli.stdout()).toBe("");
    } finally {
      await waiting.stop();
    }
  });
});
