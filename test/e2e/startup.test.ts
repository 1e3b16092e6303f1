/**
 * What a CLI call loads, file by file of the bundle: start-up time is what scripts calling
 * `petstore` in a loop pay, and it grows with every file loaded (see docs/architecture.md).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { ROOT } from "./support/binary.js";
import { runCli, type CliResult } from "./support/cli.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

interface Loaded extends CliResult {
  /** The files of dist/ the run loaded, in the order it loaded them. */
  files: string[];
  /** The sources bundled into those files, from esbuild's `// path` markers. */
  bundled: string[];
}

/** Runs the CLI under the module-recording hook of test/e2e/record-modules.js. */
async function runRecording(args: readonly string[], env: Record<string, string>): Promise<Loaded> {
  const temp = tempDir();
  const log = join(temp.dir, "modules.log");
  writeFileSync(log, "");
  const result = await runCli(args, {
    env: { ...env, PETSTORE_TEST_MODULE_LOG: log },
    nodeArgs: ["--import", pathToFileURL(join(import.meta.dirname, "record-modules.js")).href],
  });
  const dist = pathToFileURL(join(ROOT, "dist")).href;
  const files = readFileSync(log, "utf8")
    .split("\n")
    .filter((url) => url.startsWith(dist))
    .map((url) => fileURLToPath(url));
  const bundled = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const [, source] of text.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)) {
      bundled.add(source ?? "");
    }
  }
  temp.remove();
  return {
    ...result,
    files: files.map((file) => relative(ROOT, file)),
    bundled: [...bundled].sort(),
  };
}

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
    expect(result).toEqual({ code: 0, stdout: "0.1.0\n", stderr: "", files: [], bundled: [] });
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
