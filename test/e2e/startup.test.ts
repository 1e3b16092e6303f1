/**
 * What a CLI call loads, file by file of the bundle: start-up time is what scripts calling
 * `petstore` in a loop pay, and it grows with every file loaded (see docs/architecture.md).
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "./support/binary.js";
import { runCli, runCliRecordingModules } from "./support/cli.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

/** Runs the CLI with `env` under the module-recording hook (support/cli.ts). */
const runRecording = (args: readonly string[], env: Record<string, string>) =>
  runCliRecordingModules(args, { env });

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({
    seed: [{ petId: 1, name: "Rex", status: "available", quantity: 3 }],
  });
});

afterAll(async () => {
  await (server as RunningServer | undefined)?.stop();
});

describe("what a call loads", () => {
  it("sends a direct request with Node's own HTTP client, loading nothing of undici", async () => {
    const result = await runRecording(["--base-url", server.url, "inventory", "get", "1"], {
      PETSTORE_API_KEY: API_KEY,
    });
    expect(result).toMatchObject({ code: 0, stdout: "1\t3\tavailable\n", stderr: "" });
    expect(result.bundled).toContain("src/client/http-exchange.ts");
    const loaded = result.bundled.join("\n");
    expect(loaded).not.toMatch(/^node_modules\/undici\//m);
    expect(loaded).not.toMatch(/^src\/client\/dispatcher\.ts$/m);
    expect(loaded).not.toMatch(/^src\/server\//m);
  });

  it("loads undici, from its public entry, when a proxy variable is set", async () => {
    // Nothing listens on port 9 of the loopback: the run fails to connect, after loading.
    const result = await runRecording(
      ["--base-url", server.url, "--retries", "0", "inventory", "get", "1"],
      { PETSTORE_API_KEY: API_KEY, HTTP_PROXY: "http://127.0.0.1:9" },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("via proxy 127.0.0.1:9");
    expect(result.bundled).toContain("node_modules/undici/index.js");
  });

  it("adjusts one pet without loading what --file needs (file readers, batches)", async () => {
    const result = await runRecording(
      ["--base-url", server.url, "inventory", "adjust", "1", "+1"],
      {
        PETSTORE_API_KEY: API_KEY,
      },
    );
    expect(result).toMatchObject({ code: 0, stdout: "1\t4\tavailable\n", stderr: "" });
    const loaded = result.bundled.join("\n");
    expect(loaded).not.toMatch(/^node_modules\/csv-parse\//m);
    expect(loaded).not.toMatch(/^src\/commands\/inventory\/adjust-file-run\.ts$/m);
    expect(loaded).not.toMatch(/^src\/apply\/(?:batches|csv-rows|read-deltas)\.ts$/m);
  });

  it("answers --version in bin/petstore.js, loading nothing of dist/", async () => {
    const result = await runRecording(["--version"], {});
    expect(result).toEqual({
      code: 0,
      stdout: "0.1.0\n",
      stderr: "",
      files: [],
      bundled: [],
      sources: [],
    });
  });

  it("gives the same version from dist/cli.js, the package's entry point", async () => {
    const { stdout } = await runCli([], {
      nodeArgs: [
        "--input-type=module",
        "-e",
        'process.argv.push("--version"); await import(process.env.ENTRY);',
      ],
      env: { ENTRY: pathToFileURL(join(ROOT, "dist", "cli.js")).href },
    });
    expect(stdout).toBe("0.1.0\n");
  });
});
