/**
 * Hints that depend on what a real peer does, with real processes: an https URL at the real
 * `petstore serve` (which speaks plain HTTP), a small node:http server answering 404 without
 * an Error body, and the `petstore serve` line suggested for a refused loopback URL, run as
 * printed with the client's key in a file.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { BIN } from "./support/binary.js";
import { runCli } from "./support/cli.js";
import { startFakeServer, type FakeServer } from "./support/fake-server.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

describe("an https URL at the bundled server, which speaks plain HTTP", () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it("is exit 3 after one attempt, saying so and suggesting http://", async () => {
    const https = server.url.replace(/^http:/, "https:");
    const result = await runCli(["--retries", "3", "inventory", "list"], {
      env: { PETSTORE_BASE_URL: https, PETSTORE_API_KEY: API_KEY },
    });
    expect(result).toEqual({
      code: 3,
      stdout: "",
      stderr:
        `error: cannot reach ${https}/inventory: the server there speaks plain HTTP, not HTTPS (TLS: wrong version number)\n` +
        `hint: use ${server.url} in place of ${https} (from PETSTORE_BASE_URL)\n`,
    });
  });

  it("tries once: --verbose traces a single request and no retry", async () => {
    const https = server.url.replace(/^http:/, "https:");
    const result = await runCli(["--verbose", "--retries", "3", "inventory", "list"], {
      env: { PETSTORE_BASE_URL: https, PETSTORE_API_KEY: API_KEY },
    });
    expect(result.code).toBe(3);
    expect(result.stderr.match(/^\* attempt \d+: /gm)).toEqual(["* attempt 1: "]);
    expect(result.stderr).toContain(`* GET ${https}/inventory failed after `);
  });
});

describe("a server answering 404 without an Error body", () => {
  let fake: FakeServer;

  beforeAll(async () => {
    fake = await startFakeServer((_request, response) => {
      response.writeHead(404, { "content-type": "text/html" });
      response.end("<h1>Not Found</h1>");
    });
  });
  afterAll(async () => {
    await fake.stop();
  });

  it.each([
    [["inventory", "get", "42"], "/inventory/42"],
    [["inventory", "list"], "/inventory"],
  ])("%j: not a petstore server, check the base URL's /v1 (exit 5)", async (args, path) => {
    const origin = fake.url.replace(/\/v1$/, "");
    const result = await runCli(args, {
      env: { PETSTORE_BASE_URL: origin, PETSTORE_API_KEY: API_KEY },
    });
    expect(result).toEqual({
      code: 5,
      stdout: "",
      stderr:
        "error: the server answered 404 Not Found without an Error body: it does not look like a petstore server (HTTP 404)\n" +
        `hint: check the base URL ${origin} (from PETSTORE_BASE_URL): a petstore server's ends in /v1, as in ${origin}/v1\n`,
    });
    expect(fake.requests.at(-1)).toBe(`GET ${path}`);
  });
});

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("the petstore serve line suggested for a refused loopback URL", () => {
  it("runs as printed and accepts the key the client reads from PETSTORE_API_KEY_FILE", async () => {
    const temp = tempDir();
    try {
      const port = await closedPort();
      const baseUrl = `http://127.0.0.1:${port}/v1`;
      const keyFile = join(temp.dir, "petstore-key");
      writeFileSync(keyFile, "e2e-file-key-7c41d0\n");
      const env = { PETSTORE_BASE_URL: baseUrl, PETSTORE_API_KEY_FILE: keyFile };

      const refused = await runCli(["--retries", "0", "inventory", "list"], { env });
      expect(refused.code).toBe(3);
      const command = /to try petstore with demo data: (.*)\n$/.exec(refused.stderr)?.[1];
      expect(command).toBe(
        `PETSTORE_API_KEYS="$(cat "$PETSTORE_API_KEY_FILE")" petstore serve --demo --port ${port}`,
      );

      // `petstore` on PATH, as an installed package puts it; the store in the temp folder.
      const shim = join(temp.dir, "petstore");
      writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
      chmodSync(shim, 0o755);
      const server = spawn("sh", ["-c", command ?? ""], {
        cwd: temp.dir,
        detached: true,
        env: { PATH: `${temp.dir}:${process.env.PATH ?? ""}`, HOME: temp.dir, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      try {
        let out = "";
        server.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
        await new Promise<void>((resolve, reject) => {
          server.stdout.on("data", () => {
            if (out.includes(`listening on ${baseUrl}`)) resolve();
          });
          server.on("exit", (code) => {
            reject(new Error(`the suggested server exited with ${String(code)}`));
          });
        });
        const listed = await runCli(["inventory", "list", "--json"], { env });
        expect(listed.stderr).toBe("");
        expect(listed.code).toBe(0);
        expect(JSON.parse(listed.stdout)).not.toHaveLength(0);
      } finally {
        if (server.pid !== undefined) process.kill(-server.pid, "SIGTERM");
        await once(server, "close");
      }
    } finally {
      temp.remove();
    }
  });
});
