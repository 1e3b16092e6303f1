/** `npm run demo` (scripts/demo.js on the built CLI): the first thing a new user runs. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { assertBuilt, ROOT } from "./support/binary.js";

let temp: ReturnType<typeof tempDir>;
let blocker: Server | undefined;
beforeEach(() => {
  assertBuilt();
  temp = tempDir();
});
afterEach(async () => {
  if (blocker) await new Promise((resolve) => blocker?.close(resolve));
  blocker = undefined;
  temp.remove();
});

/** Runs the demo with its temporary files under this test's directory. */
async function demo(args: readonly string[]) {
  const child = spawn(process.execPath, [join(ROOT, "scripts", "demo.js"), ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: temp.dir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}

describe("npm run demo", () => {
  it("serves the demo data, runs the CLI against it, stops the server and cleans up", async () => {
    const result = await demo(["--port", "0"]);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/# listening on http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(result.stdout).toMatch(/^42\t7\tavailable$/m);
    // Piped, history is shown with --json: its tab-separated lines have no header (by design,
    // for scripts), and eight unnamed columns do not read. The set's record, then the seed's.
    const history =
      /^\$ petstore --base-url \S+ inventory history 42 --json\n(\[\n[^]*?\n\])\n/m.exec(
        result.stdout,
      );
    expect(history, result.stdout).not.toBeNull();
    expect(JSON.parse(history?.[1] ?? "")).toEqual([
      {
        seq: expect.any(Number) as number,
        at: expect.stringMatching(/Z$/) as string,
        petId: 42,
        previous: 9,
        quantity: 7,
        keyName: "key-1",
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) as string,
        reason: "counted the shelf",
        ref: null,
      },
      {
        seq: expect.any(Number) as number,
        at: expect.stringMatching(/Z$/) as string,
        petId: 42,
        previous: null,
        quantity: 9,
        keyName: null,
        requestId: null,
        reason: "demo data",
        ref: null,
      },
    ]);
    expect(result.stdout).toContain("Server stopped. Keep one running with:");
    expect(readdirSync(temp.dir)).toEqual([]);
  });

  it("says the port is taken and how to pick another, with no stack trace and no leftovers", async () => {
    blocker = createServer();
    blocker.listen(0, "127.0.0.1");
    await once(blocker, "listening");
    const address = blocker.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;

    const result = await demo(["--port", String(port)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `error: cannot listen on 127.0.0.1:${port} (EADDRINUSE)\n` +
        "hint: another process uses this port: pick another with --port\n" +
        `demo: port ${port} is taken; run the demo on another one: npm run demo -- --port 4011\n`,
    );
    expect(readdirSync(temp.dir)).toEqual([]);
  });

  it("refuses a port that is not a number", async () => {
    const result = await demo(["--port", "http"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error: invalid --port "http"');
    expect(readdirSync(temp.dir)).toEqual([]);
  });
});
