/**
 * stdout that cannot be written, end to end: the real binary with its stdout on /dev/full
 * (every write fails with ENOSPC, as on a full disk) is exit 2 with one `error:` line and its
 * hint, never a stack trace, whatever the command; a cursor file is not moved past what was
 * not written. A reader that went away (EPIPE) is still no error. With stderr on /dev/full the
 * messages are lost, but the exit code is still the run's.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { assertBuilt, BIN, childEnv } from "./support/binary.js";
import type { CliResult } from "./support/cli.js";
import { serverForBlock } from "./support/servers.js";

const FULL = "/dev/full";

const temp = tempDir("petstore-output-failure-");
afterAll(() => {
  temp.remove();
});

/**
 * Runs the CLI with its stdout on /dev/full ("full"), or on a pipe whose reader is closed at
 * once ("gone"). Returns its exit code and stderr (stdout is "").
 */
async function runWithStdout(
  args: readonly string[],
  env: Record<string, string>,
  stdout: "full" | "gone",
): Promise<CliResult> {
  assertBuilt();
  const fd = stdout === "gone" ? "pipe" : openSync(FULL, "w");
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...childEnv(), XDG_STATE_HOME: join(temp.dir, "state"), ...env },
    stdio: ["ignore", fd, "pipe"],
  });
  if (typeof fd === "number") closeSync(fd);
  child.stdout?.destroy();
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(timer);
  return { code, stdout: "", stderr };
}

const ENOSPC_EXIT: CliResult = {
  code: 2,
  stdout: "",
  stderr:
    "error: cannot write the output: no space left on device (ENOSPC)\n" +
    "hint: what was printed is incomplete: make room where stdout goes, or send it elsewhere (a write the command sent stays made; a --cursor-file is saved only for what was written out)\n",
};

describe.skipIf(!existsSync(FULL))("stdout or stderr on a full device (/dev/full)", () => {
  const { env } = serverForBlock([
    { petId: 1, name: "Rex", status: "available", quantity: 3 },
    { petId: 2, name: "Tom", status: "sold", quantity: 0 },
  ]);

  it.each([
    ["inventory list", ["inventory", "list"]],
    ["inventory list --json", ["inventory", "list", "--json"]],
    ["inventory list --csv", ["inventory", "list", "--csv"]],
    ["inventory count --sheet", ["inventory", "count", "--sheet"]],
    ["inventory count --sheet --csv", ["inventory", "count", "--sheet", "--csv"]],
    ["inventory get", ["inventory", "get", "1", "--json"]],
    ["inventory history", ["inventory", "history", "1"]],
    ["inventory changes", ["inventory", "changes", "--json"]],
    ["inventory set", ["inventory", "set", "2", "0"]],
    ["completion bash", ["completion", "bash"]],
  ])("%s: exit 2, one error line and its hint, no stack trace", async (_name, args) => {
    expect(await runWithStdout(args, env(), "full")).toEqual(ENOSPC_EXIT);
  });

  it("inventory low: exit 2, not 9, since the list was not written", async () => {
    const result = await runWithStdout(["inventory", "low", "--below", "5"], env(), "full");
    expect(result).toEqual(ENOSPC_EXIT);
  });

  it("shows no stack trace with --verbose either: it is not a bug", async () => {
    const result = await runWithStdout(["--verbose", "inventory", "list"], env(), "full");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(ENOSPC_EXIT.stderr);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stderr).not.toContain("unexpected failure");
  });

  it("inventory changes --cursor-file (and --follow) leaves the cursor where it was", async () => {
    const cursor = join(temp.dir, "changes.cursor");
    const first = await runWithStdout(
      ["inventory", "changes", "--cursor-file", cursor],
      env(),
      "full",
    );
    expect(first).toEqual(ENOSPC_EXIT);
    expect(existsSync(cursor)).toBe(false);

    writeFileSync(cursor, "1\n");
    const following = await runWithStdout(
      ["inventory", "changes", "--follow", "--cursor-file", cursor, "--json"],
      env(),
      "full",
    );
    expect(following).toEqual(ENOSPC_EXIT);
    expect(readFileSync(cursor, "utf8")).toBe("1\n");
  });

  it.each([
    ["a pet not found: exit 5, as with stderr writable", ["inventory", "get", "999"], 5, ""],
    ["a bad argument: exit 2", ["inventory", "get", "x"], 2, ""],
    ["the data still goes to stdout: exit 0", ["inventory", "get", "1"], 0, "1\t3\tavailable\n"],
  ])("stderr on /dev/full, %s", async (_name, args, code, stdout) => {
    assertBuilt();
    const fd = openSync(FULL, "w");
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...childEnv(), XDG_STATE_HOME: join(temp.dir, "state"), ...env() },
      stdio: ["ignore", "pipe", fd],
    });
    closeSync(fd);
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const [exit] = (await once(child, "close")) as [number | null];
    expect({ exit, out }).toEqual({ exit: code, out: stdout });
  });

  it("a reader gone (EPIPE) is still no error: exit 0, nothing on stderr", async () => {
    const result = await runWithStdout(["inventory", "list", "--json"], env(), "gone");
    expect(result).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});
