/**
 * `inventory apply` and `inventory adjust --file` interrupted in every phase, end to end: the
 * real CLI against the real server. Each signal is sent when the phase is certain to be in
 * progress, never after a guessed delay:
 * - reading: 50,000 rows piped to stdin (`-`), more than a pipe holds, and the rest never
 *   written; the first part has drained only once the CLI has read most of it;
 * - fetching the stock (apply): a server that holds `GET /inventory` and never answers;
 * - between batches: a proxy that holds the first batch until the CLI has taken the signal.
 * Each run prints its report (changed, unchanged, failed, not attempted), exits 130 or 143,
 * and the server holds what the report says.
 */
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { runCli, spawnCli } from "./support/cli.js";
import { startFakeServer, type FakeServer } from "./support/fake-server.js";
import { startHoldingProxy, type HoldingProxy } from "./support/proxies.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

/** Pets 1..PETS, all at 0: three batches of up to 1,000 changes. */
const PETS = 2_500;
const FIRST_BATCH = 1_000;
/** The rows of the file piped in while the CLI reads it: 90% written, the rest never. */
const LARGE = 50_000;
/** A run's refs: a prefix of its own, so that no run's rows are another's duplicates. */
const refPrefix = (run: string) => ["--ref-prefix", `e2e-interrupt/${run}`];

type Signal = "SIGINT" | "SIGTERM";
const CODE: Record<Signal, number> = { SIGINT: 130, SIGTERM: 143 };

const files = tempDir("petstore-bulk-interrupt-");
let server: RunningServer | undefined;
let proxy: HoldingProxy | undefined;
let fake: FakeServer | undefined;

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
  await fake?.stop();
  fake = undefined;
});
afterAll(async () => {
  await server?.stop();
  files.remove();
});

function serverEnv(baseUrl?: string): Record<string, string> {
  if (server === undefined) throw new Error("the server did not start");
  return { PETSTORE_BASE_URL: baseUrl ?? server.url, PETSTORE_API_KEY: API_KEY };
}

/** The quantity of every pet, from `inventory list --json`. */
async function quantities(): Promise<Map<number, number>> {
  const result = await runCli(["inventory", "list", "--json"], { env: serverEnv() });
  expect(result.code).toBe(0);
  const items = JSON.parse(result.stdout) as { petId: number; quantity: number }[];
  return new Map(items.map((item) => [item.petId, item.quantity]));
}

/** A file in the temp folder. */
function fileOf(name: string, text: string): string {
  const path = join(files.dir, name);
  writeFileSync(path, text);
  return path;
}

/** `count` data rows after `header`, row i (from 0) made by `row`. */
function rowsText(header: string, count: number, row: (i: number) => string): string {
  return header + Array.from({ length: count }, (_, i) => `${row(i)}\n`).join("");
}

/** Each command's file for the runs below, and what its not-attempted rows look like. */
const COMMANDS = {
  apply: {
    args: (file: string) => ["inventory", "apply", file],
    header: "petId,quantity\n",
    row: (i: number, value: number) => `${(i % PETS) + 1},${value}`,
    hint: "hint: run the same command again: it changes only what is still different\n",
  },
  adjust: {
    args: (file: string) => ["inventory", "adjust", "--file", file, ...refPrefix("read")],
    header: "petId,delta\n",
    row: (i: number, value: number) => `${(i % PETS) + 1},+${value}`,
    hint: "hint: run the same file again: this run applied no row of it\n",
  },
} as const;

interface JsonReport {
  changed: number;
  unchanged: number;
  failed: number;
  notAttempted: number | null;
  interruptedBy?: string;
  interruptedDuring?: string;
  results: { petId: number; outcome: string; reason?: string }[];
}

const NOTHING_SENT_NOTICE = (signal: Signal) =>
  `interrupted by ${signal}: no change has been sent; stopping, then printing the report (interrupt again to stop at once)\n`;

describe.each(["apply", "adjust"] as const)(
  "inventory %s interrupted while reading the file",
  (name) => {
    const command = COMMANDS[name];

    /**
     * Pipes 90% of a file of LARGE rows to the CLI's stdin, waits until that has drained (the
     * CLI has read all but what a pipe holds: it is reading), then sends `signal`.
     */
    async function interruptedRead(signal: Signal, json: boolean) {
      const whole = rowsText(command.header, LARGE, (i) => command.row(i, 5));
      const text = whole.slice(0, whole.indexOf("\n", whole.length * 0.9) + 1);
      expect(text.length).toBeGreaterThan(256 * 1024); // several times what a pipe holds
      const cli = spawnCli([...command.args("-"), ...(json ? ["--json"] : [])], {
        env: serverEnv(),
        openStdin: true,
      });
      const stdin = cli.process.stdin;
      await new Promise<void>((resolve) => {
        if (stdin.write(text)) resolve();
        else stdin.once("drain", resolve);
      });
      cli.process.kill(signal);
      const code = await cli.exited;
      stdin.destroy();
      return { code, stdout: cli.stdout(), stderr: cli.stderr() };
    }

    it("SIGINT: says the file was not read to its end and nothing was sent, exits 130", async () => {
      const before = await quantities();
      const result = await interruptedRead("SIGINT", false);
      expect(result.code).toBe(130);
      expect(result.stdout).toBe(
        `stdin: 0 changed, 0 ${name === "apply" ? "unchanged" : "already applied (duplicate)"}, 0 failed; interrupted by SIGINT while reading the file: it was not read to its end, and nothing was sent\n`,
      );
      expect(result.stderr).toBe(
        NOTHING_SENT_NOTICE("SIGINT") +
          "error: interrupted by SIGINT while reading stdin: it was not read to its end, and nothing was sent\n" +
          command.hint,
      );
      expect(await quantities()).toEqual(before);
    });

    it("SIGTERM with --json: counts of 0, notAttempted null (rows not known), exits 143", async () => {
      const before = await quantities();
      const result = await interruptedRead("SIGTERM", true);
      expect(result.code).toBe(143);
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
        "error: interrupted by SIGTERM while reading stdin: it was not read to its end, and nothing was sent\n",
      );
      expect(await quantities()).toEqual(before);
    });
  },
);

describe("inventory apply interrupted while fetching the stock", () => {
  /** Runs apply against a server that holds the GET, and signals once it has arrived. */
  async function interruptedFetch(
    signal: Signal,
    args: readonly string[],
    extraEnv: Record<string, string> = {},
  ) {
    let listed: () => void = () => undefined;
    const listHeld = new Promise<void>((resolve) => (listed = resolve));
    // Holds every request, answers none.
    fake = await startFakeServer((request) => {
      if (request.method === "GET") listed();
    });
    const held = fake;
    const cli = spawnCli(["inventory", "apply", ...args], {
      env: { ...serverEnv(held.url), ...extraEnv },
    });
    await listHeld;
    cli.process.kill(signal);
    const code = await cli.exited;
    return { code, stdout: cli.stdout(), stderr: cli.stderr(), requests: held.requests };
  }

  const path = () =>
    fileOf(
      "fetch.csv",
      rowsText(COMMANDS.apply.header, PETS, (i) => COMMANDS.apply.row(i, 7)),
    );

  it("SIGINT: every row not attempted, nothing sent, exits 130 without waiting for the answer", async () => {
    const file = path();
    const result = await interruptedFetch("SIGINT", [file]);
    expect(result.code).toBe(130);
    expect(result.requests).toEqual(["GET /v1/inventory"]);
    expect(result.stdout).toBe(
      `${file}: 0 changed, 0 unchanged, 0 failed, ${PETS} not attempted (interrupted by SIGINT before anything was sent)\n`,
    );
    expect(result.stderr).toBe(
      NOTHING_SENT_NOTICE("SIGINT") +
        `error: interrupted by SIGINT before anything was sent: ${PETS} rows not attempted\n` +
        COMMANDS.apply.hint,
    );
  });

  it("through a proxy (HTTP_PROXY, undici): exits at once too, the held GET dropped", async () => {
    // A CONNECT proxy, as a corporate one: the CLI tunnels through it to the held server.
    const tunnel = createServer();
    tunnel.on("connect", (request, socket, head) => {
      const [host = "", port = ""] = (request.url ?? "").split(":");
      const upstream = connect(Number(port), host, () => {
        socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(socket).on("error", () => undefined);
        socket.pipe(upstream).on("error", () => undefined);
      });
      upstream.on("error", () => socket.destroy());
      socket.on("error", () => upstream.destroy());
    });
    tunnel.listen(0, "127.0.0.1");
    await once(tunnel, "listening");
    const { port } = tunnel.address() as AddressInfo;
    try {
      const file = path();
      // The held GET's time-out is an hour, far past this test's own: the CLI exits on the
      // signal, never on that time-out, or the test times out.
      const result = await interruptedFetch("SIGINT", ["--timeout", "3600000", file], {
        HTTP_PROXY: `http://127.0.0.1:${port}`,
      });
      expect(result.code).toBe(130);
      expect(result.stdout).toContain(`${PETS} not attempted (interrupted by SIGINT`);
      expect(result.requests).toEqual(["GET /v1/inventory"]);
    } finally {
      tunnel.closeAllConnections();
      tunnel.close();
    }
  });

  it("SIGTERM with --json: every row listed as not_attempted, exits 143", async () => {
    const file = path();
    const result = await interruptedFetch("SIGTERM", ["--json", file]);
    expect(result.code).toBe(143);
    expect(result.requests).toEqual(["GET /v1/inventory"]);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report).toMatchObject({
      changed: 0,
      unchanged: 0,
      failed: 0,
      notAttempted: PETS,
      interruptedBy: "SIGTERM",
      interruptedDuring: "preparing",
    });
    expect(report.results).toHaveLength(PETS);
    expect(report.results[0]).toEqual({
      petId: 1,
      previous: null,
      desired: 7,
      outcome: "not_attempted",
      reason:
        "not attempted: interrupted by SIGTERM before anything was sent; run again to apply it",
    });
  });
});

describe("inventory adjust --file interrupted between batches", () => {
  /** Runs adjust --file through a proxy holding each batch; signals while the first is held. */
  async function interruptedAdjust(signal: Signal, args: readonly string[]) {
    proxy = await startHoldingProxy(serverEnv().PETSTORE_BASE_URL ?? "");
    const held = proxy;
    const cli = spawnCli(["inventory", "adjust", ...args], {
      env: serverEnv(held.url),
    });
    await held.writesHeld(1);
    cli.process.kill(signal);
    await cli.stderrContains(`interrupted by ${signal}: sending no more changes`);
    held.release();
    const code = await cli.exited;
    return { code, stdout: cli.stdout(), stderr: cli.stderr(), writes: held.writes };
  }

  it("SIGINT: the batch in flight applied, the rest not attempted (not failed), exits 130; a re-run applies the rest once", async () => {
    const before = await quantities();
    const was = (petId: number) => before.get(petId) ?? 0;
    const file = fileOf(
      "sales-sigint.csv",
      rowsText(COMMANDS.adjust.header, PETS, (i) => COMMANDS.adjust.row(i, 2)),
    );
    const result = await interruptedAdjust("SIGINT", ["--file", file, ...refPrefix("sigint")]);
    expect(result.code).toBe(130);
    expect(result.writes).toEqual(["POST /v1/inventory/batch"]);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toBe(
      `${file}: ${FIRST_BATCH} changed, 0 already applied (duplicate), 0 failed, ${PETS - FIRST_BATCH} not attempted (interrupted by SIGINT)`,
    );
    expect(result.stdout).toContain(
      `not attempted (${PETS - FIRST_BATCH} rows: interrupted by SIGINT; run the same file again to apply them):\n  line ${FIRST_BATCH + 2}: pet ${FIRST_BATCH + 1} +2\n`,
    );
    expect(result.stderr).toBe(
      "interrupted by SIGINT: sending no more changes; finishing the batch in flight, then printing the report (interrupt again to stop at once)\n" +
        `error: interrupted by SIGINT: ${FIRST_BATCH} changes applied, ${PETS - FIRST_BATCH} rows not attempted (the report lists them)\n` +
        "hint: run the same file again, unchanged with the same --ref-prefix e2e-interrupt/sigint: the rows it applied come back duplicate, so only the others apply\n",
    );
    const after = await quantities();
    for (let petId = 1; petId <= PETS; petId += 1) {
      expect(after.get(petId)).toBe(was(petId) + (petId <= FIRST_BATCH ? 2 : 0));
    }

    const again = await runCli(
      ["inventory", "adjust", "--file", file, ...refPrefix("sigint"), "--json"],
      { env: serverEnv() },
    );
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      changed: PETS - FIRST_BATCH,
      unchanged: FIRST_BATCH,
      failed: 0,
      notAttempted: 0,
    });
    const final = await quantities();
    for (let petId = 1; petId <= PETS; petId += 1) expect(final.get(petId)).toBe(was(petId) + 2);
  });

  it("SIGTERM with --json: notAttempted apart from failed, matching the server, exits 143", async () => {
    const before = await quantities();
    const file = fileOf(
      "sales-sigterm.csv",
      rowsText(COMMANDS.adjust.header, PETS, (i) => COMMANDS.adjust.row(i, 3)),
    );
    const result = await interruptedAdjust("SIGTERM", [
      "--file",
      file,
      ...refPrefix("sigterm"),
      "--json",
    ]);
    expect(result.code).toBe(143);
    const report = JSON.parse(result.stdout) as JsonReport;
    expect(report).toMatchObject({
      changed: FIRST_BATCH,
      unchanged: 0,
      failed: 0,
      notAttempted: PETS - FIRST_BATCH,
      interruptedBy: "SIGTERM",
      interruptedDuring: "sending",
    });
    const after = await quantities();
    for (const row of report.results) {
      expect(["changed", "not_attempted"]).toContain(row.outcome);
      const was = before.get(row.petId) ?? 0;
      expect(after.get(row.petId)).toBe(row.outcome === "changed" ? was + 3 : was);
    }
  });
});

describe("a second interrupt", () => {
  it("stops at once: no report but a line saying what that leaves, exit 130, and the batch held in flight never reaches the server", async () => {
    const before = await quantities();
    proxy = await startHoldingProxy(serverEnv().PETSTORE_BASE_URL ?? "");
    const held = proxy;
    const file = fileOf(
      "twice.csv",
      rowsText(COMMANDS.apply.header, PETS, (i) => COMMANDS.apply.row(i, 9)),
    );
    const cli = spawnCli(["inventory", "apply", file], { env: serverEnv(held.url) });
    await held.writesHeld(1);
    cli.process.kill("SIGINT");
    await cli.stderrContains("interrupted by SIGINT: starting no more changes");
    cli.process.kill("SIGINT");
    expect(await cli.exited).toBe(CODE.SIGINT);
    expect(cli.stdout()).toBe("");
    expect(cli.stderr()).toBe(
      "interrupted by SIGINT: starting no more changes; finishing those in flight, then printing the report (interrupt again to stop at once)\n" +
        "stopped at once by a second SIGINT, without the report: a request in flight may have been applied; run the same command again to settle it\n",
    );
    await held.stop(); // the held batch is dropped, never forwarded
    proxy = undefined;
    expect(await quantities()).toEqual(before);
  });
});
