/**
 * `inventory apply` interrupted, end to end: the real CLI against the real server, through a
 * proxy that holds each PATCH until the test lets it go. The signal is sent while the first
 * write is in flight, and that write is released only once the CLI says it took the signal:
 * no timing guesses.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  API_KEY,
  runCli,
  spawnCli,
  startFakeServer,
  startHoldingProxy,
  startServer,
  tempDir,
  type HoldingProxy,
  type RunningServer,
} from "./helpers.js";

const PETS = 12;
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

async function stock(): Promise<string> {
  const result = await runCli(["inventory", "list", "--csv"], { env: serverEnv() });
  expect(result.code).toBe(0);
  return result.stdout;
}

/** Sets every pet to `quantity` (pets 1..PETS), one line per pet. */
function countsFile(name: string, quantity: number): string {
  const path = join(files.dir, name);
  const rows = Array.from({ length: PETS }, (_, i) => `${i + 1},${quantity}\n`).join("");
  writeFileSync(path, `petId,quantity\n${rows}`);
  return path;
}

/** Runs apply through a holding proxy and sends `signal` while the first PATCH is held. */
async function interruptedApply(signal: "SIGINT" | "SIGTERM", args: readonly string[]) {
  const held = await startHoldingProxy(serverEnv().PETSTORE_BASE_URL ?? "");
  proxy = held;
  const cli = spawnCli(["inventory", "apply", "--concurrency", "1", ...args], {
    env: { PETSTORE_BASE_URL: held.url, PETSTORE_API_KEY: API_KEY },
  });
  await held.patchesHeld(1);
  cli.process.kill(signal);
  await cli.stderrContains(`interrupted by ${signal}: starting no more changes`);
  held.release();
  const code = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr(), patches: held.patches };
}

const statusLines = (quantityOf: (petId: number) => number) =>
  "petId,quantity,status\n" +
  Array.from({ length: PETS }, (_, i) => `${i + 1},${quantityOf(i + 1)},available\n`).join("");

describe("inventory apply interrupted", () => {
  it("SIGINT: finishes the write in flight, reports it and the rows not attempted, exits 130", async () => {
    const path = countsFile("sigint.csv", 5);
    const result = await interruptedApply("SIGINT", [path]);
    expect(result.code).toBe(130);
    expect(result.patches).toEqual(["PATCH /v1/inventory/1"]);
    expect(result.stdout).toBe(
      `${path}: 1 changed, 0 unchanged, ${PETS - 1} failed\n` +
        "changed:\n  pet 1: 0 -> 5\n" +
        `not attempted (${PETS - 1} rows: interrupted by SIGINT; run the same command again to apply them):\n` +
        Array.from({ length: PETS - 1 }, (_, i) => `  pet ${i + 2}: 0 -> 5\n`).join(""),
    );
    expect(result.stderr).toContain(
      `error: interrupted by SIGINT: 1 change applied, ${PETS - 1} rows not attempted (the report lists them)\n`,
    );
    expect(await stock()).toBe(statusLines((petId) => (petId === 1 ? 5 : 0)));

    // A re-run picks up exactly the rows that were not attempted.
    const again = await runCli(["inventory", "apply", "--json", path], { env: serverEnv() });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: PETS - 1, unchanged: 1, failed: 0 });
    expect(await stock()).toBe(statusLines(() => 5));
  });

  it("SIGTERM with --json: one JSON document matching the server's state, exits 143", async () => {
    const path = countsFile("sigterm.csv", 9);
    const result = await interruptedApply("SIGTERM", ["--json", path]);
    expect(result.code).toBe(143);
    expect(result.patches).toEqual(["PATCH /v1/inventory/1"]);
    const report = JSON.parse(result.stdout) as {
      changed: number;
      failed: number;
      results: { petId: number; outcome: string; reason?: string }[];
    };
    expect(report).toMatchObject({ changed: 1, unchanged: 0, failed: PETS - 1 });
    expect(report.results[0]).toEqual({ petId: 1, previous: 5, desired: 9, outcome: "changed" });
    for (const row of report.results.slice(1)) {
      expect(row).toMatchObject({
        outcome: "failed",
        reason: "not attempted: interrupted by SIGTERM; run again to apply it",
      });
    }
    expect(await stock()).toBe(statusLines((petId) => (petId === 1 ? 9 : 5)));
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
      while (waiting.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
      cli.process.kill(signal);
      expect(await cli.exited).toBe(code);
      expect(cli.stdout()).toBe("");
    } finally {
      await waiting.stop();
    }
  });
});
