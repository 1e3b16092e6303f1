/**
 * The real binary against the real `petstore serve` (and, for faults the server never shows,
 * against small fake servers): every exit code, piped and terminal output, int64 round trips.
 */
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { runCli, runCliRecordingModules } from "./support/cli.js";
import { replyJson, startFakeServer } from "./support/fake-server.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";
import { HAS_SCRIPT, runCliInTty } from "./support/tty.js";
import { MAX_ID } from "../support/ids.js";

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/;

let server: RunningServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startServer({
    seed: [
      { petId: 1, name: "Rex", status: "available", quantity: 3 },
      { petId: 2, name: "Tom", status: "pending", quantity: 0 },
      { petId: 3, name: "Kiwi", status: "available", quantity: 4 },
      { petId: 4, name: "Nemo", status: "sold", quantity: 9 },
      { petId: MAX_ID, name: "Max", status: "sold", quantity: 1 },
    ],
  });
  env = { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: API_KEY };
});

afterAll(async () => {
  // Undefined when beforeAll failed (for example on a stale build).
  await (server as RunningServer | undefined)?.stop();
});

describe("exit 0 and output formats", () => {
  it("prints tab-separated lines without colour or totals when piped", async () => {
    const result = await runCli(["inventory", "list", "--status", "available"], { env });
    expect(result).toEqual({ code: 0, stdout: "1\t3\tavailable\n3\t4\tavailable\n", stderr: "" });
  });

  it("keeps the output plain when piped even with FORCE_COLOR", async () => {
    const result = await runCli(["inventory", "list", "--status", "pending"], {
      env: { ...env, FORCE_COLOR: "1" },
    });
    expect(result).toEqual({ code: 0, stdout: "2\t0\tpending\n", stderr: "" });
  });

  it.skipIf(!HAS_SCRIPT)("prints a coloured table with totals on a terminal", async () => {
    const result = await runCliInTty(["inventory", "list", "--status", "available"], { env });
    expect(result.code).toBe(0);
    expect(result.output).toMatch(ANSI);
    expect(result.output).toContain("┌");
    expect(result.output).toContain("2 pets, 7 in stock (available 7, pending 0, sold 0)");
  });

  it.skipIf(!HAS_SCRIPT)("leaves the terminal table uncoloured with NO_COLOR", async () => {
    const result = await runCliInTty(["inventory", "list", "--status", "available"], {
      env: { ...env, NO_COLOR: "1" },
    });
    expect(result.code).toBe(0);
    expect(result.output).not.toMatch(ANSI);
    expect(result.output).toMatch(/│ +1 │ +3 │ available │/);
  });

  it.skipIf(!HAS_SCRIPT)("leaves the terminal table uncoloured with --no-color", async () => {
    const result = await runCliInTty(["--no-color", "inventory", "list"], { env });
    expect(result.code).toBe(0);
    expect(result.output).not.toMatch(ANSI);
    expect(result.output).toContain("5 pets");
  });

  it("round-trips petId 9223372036854775807 through set, list --json and list --csv", async () => {
    const set = await runCli(["inventory", "set", MAX_ID.toString(), "12345", "--json"], { env });
    expect(set).toEqual({
      code: 0,
      stdout: `{\n  "petId": ${MAX_ID},\n  "quantity": 12345,\n  "status": "sold"\n}\n`,
      stderr: "",
    });
    const json = await runCli(["inventory", "list", "--json", "--status", "sold"], { env });
    expect(json.code).toBe(0);
    expect(json.stdout).toContain(`"petId": ${MAX_ID},\n    "quantity": 12345,`);
    const csv = await runCli(["inventory", "list", "--csv"], { env });
    expect(csv.code).toBe(0);
    expect(csv.stdout.split("\n")[0]).toBe("petId,quantity,status");
    expect(csv.stdout).toContain(`\n${MAX_ID},12345,sold\n`);
    const tsv = await runCli(["inventory", "list"], { env });
    expect(tsv.stdout).toContain(`\n${MAX_ID}\t12345\tsold\n`);
  });

  it("sets a quantity and prints the updated entry; repeating it changes nothing", async () => {
    const first = await runCli(["inventory", "set", "3", "7"], { env });
    expect(first).toEqual({ code: 0, stdout: "3\t7\tavailable\n", stderr: "" });
    const again = await runCli(["inventory", "set", "3", "7"], { env });
    expect(again).toEqual(first);
  });

  it("reads the key from PETSTORE_API_KEY_FILE", async () => {
    const temp = tempDir();
    const keyFile = join(temp.dir, "key");
    writeFileSync(keyFile, `${API_KEY}\n`);
    const result = await runCli(["inventory", "list", "--status", "pending"], {
      env: { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY_FILE: keyFile },
    });
    temp.remove();
    expect(result).toEqual({ code: 0, stdout: "2\t0\tpending\n", stderr: "" });
  });

  it("warns once on stderr that pets get is deprecated, keeping stdout data only", async () => {
    const result = await runCli(["pets", "get", "1", "--json"], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ id: 1, name: "Rex", status: "available" });
    const warnings = result.stderr.split("\n").filter((line) => line !== "");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^warning: the server marks GET ${server.url}/pets/1 as deprecated since \\d{4}-\\d{2}-\\d{2}; it stops working after \\d{4}-\\d{2}-\\d{2}$`,
      ),
    );
  });

  it("lists the orders the server holds", async () => {
    // Seed files hold pets only; --demo is the server's way to load orders too.
    const demo = await startServer({ args: ["--demo"] });
    const demoEnv = { PETSTORE_BASE_URL: demo.url, PETSTORE_API_KEY: API_KEY };
    const json = await runCli(["orders", "list", "--json"], { env: demoEnv });
    const piped = await runCli(["orders", "list"], { env: demoEnv });
    await demo.stop();
    expect(json.code).toBe(0);
    expect(json.stderr).toBe("");
    expect(JSON.parse(json.stdout)).toEqual([
      {
        id: 1,
        petId: 3,
        quantity: 1,
        shipDate: "2026-11-20T10:00:00.000Z",
        status: "approved",
        complete: false,
      },
      {
        id: 2,
        petId: 4,
        quantity: 1,
        shipDate: "2026-11-18T15:30:00.000Z",
        status: "delivered",
        complete: true,
      },
      {
        id: 3,
        petId: 7,
        quantity: 2,
        shipDate: "2026-11-22T09:00:00.000Z",
        status: "placed",
        complete: false,
      },
    ]);
    expect(piped).toEqual({
      code: 0,
      stdout:
        "1\t3\t1\t2026-11-20T10:00:00.000Z\tapproved\tfalse\n" +
        "2\t4\t1\t2026-11-18T15:30:00.000Z\tdelivered\ttrue\n" +
        "3\t7\t2\t2026-11-22T09:00:00.000Z\tplaced\tfalse\n",
      stderr: "",
    });
  });

  it("traces with --verbose without ever printing the key", async () => {
    const result = await runCli(["--verbose", "inventory", "list", "--json"], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("> authorization: Bearer [redacted]");
    expect(result.stderr).toContain("< 200 OK");
    expect(result.stderr).not.toContain(API_KEY);
    expect(result.stdout).not.toContain(API_KEY);
    expect(JSON.parse(result.stdout)).toHaveLength(5);
  });

  it("answers --version in bin/petstore.js, loading nothing of the CLI", async () => {
    const version = await runCliRecordingModules(["--version"]);
    expect(version).toEqual({
      code: 0,
      stdout: "0.1.0\n",
      stderr: "",
      files: [],
      bundled: [],
      sources: [],
    });
    // The same recording sees the full CLI load for anything else, --version among others.
    const other = await runCliRecordingModules(["--version", "--no-color"]);
    expect(other).toMatchObject({ code: 0, stdout: "0.1.0\n", stderr: "" });
    expect(other.sources).toEqual(
      expect.arrayContaining(["src/main.ts", "src/run.ts", "node_modules/commander"]),
    );
  });
});

describe("exit 2: usage", () => {
  it("names the variable when the key is missing, before any request", async () => {
    const result = await runCli(["inventory", "list"], { env: { PETSTORE_BASE_URL: server.url } });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "error: no API key: set PETSTORE_API_KEY (or PETSTORE_API_KEY_FILE)\n" +
        "hint: the key is never accepted as a flag, so it stays out of shell history and ps\n",
    });
  });

  it("names the variable when the base URL is missing", async () => {
    const result = await runCli(["inventory", "list"], { env: { PETSTORE_API_KEY: API_KEY } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: no production base URL: set PETSTORE_BASE_URL \(or pass --base-url\)\n/,
    );
  });

  it("rejects a bad quantity without sending anything, pointing a change to adjust", async () => {
    const fake = await startFakeServer((_request, response) => {
      replyJson(response, 500, "{}");
    });
    const result = await runCli(["inventory", "set", "42", "-3"], {
      env: { PETSTORE_BASE_URL: fake.url, PETSTORE_API_KEY: API_KEY },
    });
    await fake.stop();
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: invalid quantity "-3": expected a whole number from 0 to 2147483647\n' +
        "hint: to take 3 from the count, use: petstore inventory adjust 42 -3\n",
    );
    expect(fake.requests).toEqual([]);
  });

  it("rejects an unknown command", async () => {
    const result = await runCli(["inventroy", "list"], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "error: unknown command 'inventroy'\n(Did you mean inventory?)",
    );
  });

  it("rejects an unknown --status", async () => {
    const result = await runCli(["inventory", "list", "--status", "gone"], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "argument 'gone' is invalid. Allowed choices are available, pending, sold.",
    );
  });
});

describe("exit 3: unreachable, timed out, failing", () => {
  it("reports a refused connection with the URL it tried, and how to start a server there", async () => {
    const gone = await startServer();
    const url = gone.url;
    await gone.stop();
    // The server's own default port needs no --port (a free port that is 4010, by chance).
    const port = gone.port === 4010 ? "" : ` --port ${gone.port}`;
    const result = await runCli(["--retries", "1", "inventory", "list"], {
      env: { PETSTORE_BASE_URL: url, PETSTORE_API_KEY: API_KEY },
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `error: cannot reach ${url}/inventory: connection refused (ECONNREFUSED)\n` +
        `hint: tried ${url} (from PETSTORE_BASE_URL), 2 attempts, and nothing listens there; if your store is served from here, start its server (petstore serve with its --db or PETSTORE_DATABASE_URL); to try petstore with demo data: PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo${port}\n`,
    );
  });

  it("times out a server that never answers", async () => {
    const fake = await startFakeServer(() => undefined);
    const result = await runCli(["--timeout", "300", "--retries", "1", "inventory", "list"], {
      env: { PETSTORE_BASE_URL: fake.url, PETSTORE_API_KEY: API_KEY },
    });
    await fake.stop();
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `error: GET ${fake.url}/inventory timed out: no answer within 300 ms\n` +
        `hint: tried ${fake.url} (from PETSTORE_BASE_URL), 2 attempts; raise --timeout or check the network\n`,
    );
    expect(fake.requests).toHaveLength(2);
  });

  it("retries a 503 and succeeds", async () => {
    let calls = 0;
    const fake = await startFakeServer((_request, response) => {
      calls += 1;
      if (calls === 1) {
        replyJson(response, 503, '{"code":"unavailable","message":"restarting","status":503}', {
          "retry-after": "0",
        });
      } else {
        replyJson(response, 200, '[{"petId":5,"quantity":1,"status":"pending"}]');
      }
    });
    const result = await runCli(["inventory", "list"], {
      env: { PETSTORE_BASE_URL: fake.url, PETSTORE_API_KEY: API_KEY },
    });
    await fake.stop();
    expect(result).toEqual({ code: 0, stdout: "5\t1\tpending\n", stderr: "" });
    expect(fake.requests).toEqual(["GET /v1/inventory", "GET /v1/inventory"]);
  });

  it("gives up on a 503 after the retries", async () => {
    const fake = await startFakeServer((_request, response) => {
      replyJson(response, 503, '{"code":"unavailable","message":"restarting","status":503}');
    });
    const result = await runCli(["--retries", "1", "inventory", "list"], {
      env: { PETSTORE_BASE_URL: fake.url, PETSTORE_API_KEY: API_KEY },
    });
    await fake.stop();
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      "error: restarting (unavailable, HTTP 503)\n" +
        "hint: the server kept failing (2 attempts); try again later, or raise --retries\n",
    );
  });
});

describe("exit 4, 5, 6: the server said no", () => {
  it("exits 4 on a wrong key and names the variable that holds it", async () => {
    const result = await runCli(["inventory", "list"], {
      env: { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: "wrong-key" },
    });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: .+ \(unauthorized, HTTP 401\)\n/);
    expect(result.stderr).toContain(
      `hint: check the API key for ${server.url} (from PETSTORE_BASE_URL): it comes from PETSTORE_API_KEY\n`,
    );
    expect(result.stderr).not.toContain("wrong-key");
  });

  it("exits 5 when the pet does not exist", async () => {
    const result = await runCli(["inventory", "set", "999", "1"], { env });
    expect(result.code).toBe(5);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^error: .+ \(pet_not_found, HTTP 404\)\n/);
    expect(result.stderr).toContain("hint: check the petId");
  });

  it("exits 6 when a server rejects the request as invalid", async () => {
    // The bundled server accepts everything the CLI lets through, but another server that
    // follows the spec may bound quantity more tightly.
    const fake = await startFakeServer((_request, response) => {
      replyJson(
        response,
        400,
        '{"code":"invalid_body","message":"quantity must be at most 1000","status":400}',
      );
    });
    const result = await runCli(["inventory", "set", "42", "5000"], {
      env: { PETSTORE_BASE_URL: fake.url, PETSTORE_API_KEY: API_KEY },
    });
    await fake.stop();
    expect(result).toEqual({
      code: 6,
      stdout: "",
      stderr:
        "error: quantity must be at most 1000 (invalid_body, HTTP 400)\n" +
        "hint: check the petId and quantity: the server's message above says what it rejected\n",
    });
    expect(fake.requests).toEqual(["PATCH /v1/inventory/42"]);
  });
});

describe("proxies", () => {
  let proxy: Server;
  let proxyUrl: string;
  const tunnels: string[] = [];

  beforeAll(async () => {
    // A minimal forward proxy: undici's ProxyAgent tunnels with CONNECT.
    proxy = createServer((_request, response) => {
      response.writeHead(405).end();
    });
    proxy.on("connect", (request, client) => {
      tunnels.push(request.url ?? "");
      const [host, port] = (request.url ?? "").split(":");
      const upstream = connect(Number(port), host, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    proxy.listen(0, "127.0.0.1");
    await once(proxy, "listening");
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    proxy.closeAllConnections();
    proxy.close();
    await once(proxy, "close");
  });

  it("goes through HTTP_PROXY", async () => {
    tunnels.length = 0;
    const result = await runCli(["inventory", "list", "--status", "pending"], {
      env: { ...env, HTTP_PROXY: proxyUrl },
    });
    expect(result).toEqual({ code: 0, stdout: "2\t0\tpending\n", stderr: "" });
    expect(tunnels).toEqual([`127.0.0.1:${server.port}`]);
  });

  it("bypasses the proxy for hosts in NO_PROXY", async () => {
    tunnels.length = 0;
    const result = await runCli(["inventory", "list", "--status", "pending"], {
      env: { ...env, HTTP_PROXY: proxyUrl, NO_PROXY: "127.0.0.1" },
    });
    expect(result.code).toBe(0);
    expect(tunnels).toEqual([]);
  });
});
