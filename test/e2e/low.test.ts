/**
 * `inventory low` end to end: the real binary against the real `petstore serve` (and against a
 * server that implements only the spec's GET /inventory), its exit codes 9, 0, 2 and 3, a
 * thresholds file from disk and from stdin, the cron line of its help run by /bin/sh, and what
 * it loads.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { BIN } from "./support/binary.js";
import { runCli, runCliRecordingModules, type CliResult } from "./support/cli.js";
import { replyJson, startFakeServer } from "./support/fake-server.js";
import { serverForBlock } from "./support/servers.js";
import { HAS_SCRIPT, runCliInTty } from "./support/tty.js";
import { MAX_ID, MAX_ID_TEXT } from "../support/ids.js";

const temp = tempDir("petstore-low-");
afterAll(() => {
  temp.remove();
});

/** Writes a file into the test's temporary directory and returns its path. */
function file(name: string, text: string): string {
  const path = join(temp.dir, name);
  writeFileSync(path, text);
  return path;
}

/** Runs `command` with /bin/sh, as cron does, with only `env` (and HOME) in its environment. */
async function runShell(command: string, env: Record<string, string>): Promise<CliResult> {
  const child = spawn("/bin/sh", ["-c", command], {
    env: { HOME: process.env.HOME, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}

/**
 * A folder for PATH holding `petstore` (the built binary) and a `mail` that writes its
 * arguments and message to `mailed`.
 */
function cronBin(mailed: string): string {
  const bin = join(temp.dir, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "petstore"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  writeFileSync(join(bin, "mail"), `#!/bin/sh\n{ echo "mail $*"; cat; } > "${mailed}"\n`);
  chmodSync(join(bin, "petstore"), 0o755);
  chmodSync(join(bin, "mail"), 0o755);
  return bin;
}

describe("inventory low against the bundled server", () => {
  const { env } = serverForBlock([
    { petId: 1, name: "Rex", status: "available", quantity: 3 },
    { petId: 2, name: "Tom", status: "pending", quantity: 0 },
    { petId: 3, name: "Kiwi", status: "available", quantity: 4 },
    { petId: 4, name: "Nemo", status: "sold", quantity: 9 },
    { petId: MAX_ID, name: "Max", status: "available", quantity: 1 },
  ]);

  it("prints the pets below --below and exits 9, with nothing on stderr", async () => {
    const result = await runCli(["inventory", "low", "--below", "3"], { env: env() });
    expect(result).toEqual({
      code: 9,
      stdout: `2\t0\tpending\t3\n${MAX_ID_TEXT}\t1\tavailable\t3\n`,
      stderr: "",
    });
  });

  it("exits 0 with no output when nothing is low", async () => {
    const result = await runCli(["inventory", "low", "--below", "1", "--status", "sold"], {
      env: env(),
    });
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("uses the thresholds file over --below, warning about a pet the inventory lacks", async () => {
    const path = file(
      "minimums.csv",
      "\uFEFFpetId,minimum,note\r\n3,5,kiwis\r\n2,0,gone\r\n77,4,\r\n",
    );
    const result = await runCli(
      ["inventory", "low", "--thresholds", path, "--below", "2", "--json"],
      { env: env() },
    );
    expect(result.code).toBe(9);
    expect(result.stderr).toBe(
      `warning: 1 pet in ${path} is not in the inventory, so not checked: 77 (line 4)\n`,
    );
    // 3 (4 < 5) by its row; 2 exempt (minimum 0); MAX (1 < 2) by --below; 1 and 4 are not.
    expect(result.stdout).toContain(`"petId": ${MAX_ID_TEXT},`);
    expect(JSON.parse(result.stdout.replace(MAX_ID_TEXT, "0"))).toEqual([
      { petId: 3, quantity: 4, status: "available", minimum: 5 },
      { petId: 0, quantity: 1, status: "available", minimum: 2 },
    ]);
  });

  it("reads the thresholds from stdin for -", async () => {
    const result = await runCli(["inventory", "low", "--thresholds", "-", "--csv"], {
      env: env(),
      input: "minimum,petId\n10,4\n",
    });
    expect(result).toEqual({
      code: 9,
      stdout: "petId,quantity,status,minimum\n4,9,sold,10\n",
      stderr: "",
    });
  });

  it("refuses a malformed thresholds file with exit 2 naming the line", async () => {
    const path = file("bad.csv", "petId,minimum\n1,2\n3,two\n1,4\n");
    const result = await runCli(["inventory", "low", "--thresholds", path], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `error: ${path} has 2 problems:\n` +
        '  line 3: invalid minimum "two": expected a whole number from 0 to 2147483647\n' +
        "  line 4: duplicate petId 1 (first on line 2)\n" +
        "hint: fix the file and run again; nothing was fetched\n",
    });
  });

  it("needs --below or --thresholds (exit 2)", async () => {
    const result = await runCli(["inventory", "low"], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("give --below N, --thresholds FILE, or both");
  });

  it.skipIf(!HAS_SCRIPT)("draws a table with minimum and short columns on a terminal", async () => {
    const result = await runCliInTty(["--no-color", "inventory", "low", "--below", "4"], {
      env: env(),
    });
    expect(result.code).toBe(9);
    expect(result.output).toMatch(/│ +petId │ quantity │ status +│ minimum │ short │/);
    expect(result.output).toMatch(/│ +1 │ +3 │ available │ +4 │ +1 │/);
    expect(result.output).toContain("3 of 5 pets checked are low\n");
  });

  it("runs the cron line of its help under /bin/sh: mails the CSV on exit 9, nothing on 0", async () => {
    const help = await runCli(["inventory", "low", "--help"]);
    const schedule = "  0 7 * * * ";
    const cronLine = help.stdout.split("\n").find((line) => line.startsWith(schedule));
    const command = cronLine?.slice(schedule.length) ?? "";
    expect(command).toContain("low=$(petstore inventory low --below 3 --csv)");
    const mailed = join(temp.dir, "mailed.txt");
    const path = `${cronBin(mailed)}:${process.env.PATH ?? ""}`;

    const low = await runShell(command, { ...env(), PATH: path });
    expect(low).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(mailed, "utf8")).toBe(
      "mail -s low stock shop@example.com\n" +
        `petId,quantity,status,minimum\n2,0,pending,3\n${MAX_ID_TEXT},1,available,3\n`,
    );

    // The same line when nothing is low: no mail, and no output for cron to mail either.
    writeFileSync(mailed, "");
    const none = await runShell(command.replace("--below 3", "--below 3 --status sold"), {
      ...env(),
      PATH: path,
    });
    expect(none).toMatchObject({ stdout: "", stderr: "" });
    expect(readFileSync(mailed, "utf8")).toBe("");

    // A failure is not mailed by the line, but its error is output that cron mails.
    const failing = await runShell(command, { ...env(), PETSTORE_API_KEY: "wrong", PATH: path });
    expect(failing.stderr).toContain("error: ");
    expect(readFileSync(mailed, "utf8")).toBe("");
  });
});

describe("inventory low against a server that implements only the spec", () => {
  it("makes one request, GET /v1/inventory", async () => {
    const server = await startFakeServer((request, response) => {
      if (request.method === "GET" && request.url === "/v1/inventory") {
        replyJson(response, 200, `[{"petId":5,"quantity":1,"status":"available"}]`);
      } else {
        replyJson(response, 404, '{"code":"not_found","message":"no such route","status":404}');
      }
    });
    try {
      const thresholds = file("spec-only.csv", "petId,minimum\n5,2\n");
      const result = await runCli(
        ["inventory", "low", "--thresholds", thresholds, "--below", "1"],
        {
          env: { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: "any" },
        },
      );
      expect(result).toEqual({ code: 9, stdout: "5\t1\tavailable\t2\n", stderr: "" });
      expect(server.requests).toEqual(["GET /v1/inventory"]);
    } finally {
      await server.stop();
    }
  });

  it("exits 3 when the server cannot be reached", async () => {
    const result = await runCli(
      ["--base-url", "http://127.0.0.1:9/v1", "--retries", "0", "inventory", "low", "--below", "1"],
      { env: { PETSTORE_API_KEY: "any" } },
    );
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
  });
});

describe("what inventory low loads", () => {
  const { env } = serverForBlock([{ petId: 1, name: "Rex", status: "available", quantity: 3 }]);

  it("loads no CSV reader for --below", async () => {
    const result = await runCliRecordingModules(["inventory", "low", "--below", "5"], {
      env: env(),
    });
    expect(result).toMatchObject({ code: 9, stdout: "1\t3\tavailable\t5\n", stderr: "" });
    expect(result.sources).toContain("src/commands/inventory/low-run.ts");
    expect(result.sources).not.toContain("node_modules/csv-parse");
    expect(result.sources).not.toContain("src/apply/thresholds.ts");
  });

  it("loads the thresholds reader for --thresholds", async () => {
    const path = file("loads.csv", "petId,minimum\n1,2\n");
    const result = await runCliRecordingModules(["inventory", "low", "--thresholds", path], {
      env: env(),
    });
    expect(result).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(result.sources).toContain("src/apply/thresholds.ts");
    expect(result.sources).toContain("node_modules/csv-parse");
  });

  it("is not loaded by inventory list", async () => {
    const result = await runCliRecordingModules(["inventory", "list"], { env: env() });
    expect(result.code).toBe(0);
    expect(result.sources).not.toContain("src/commands/inventory/low-run.ts");
    expect(result.sources).not.toContain("src/output/low.ts");
  });
});
