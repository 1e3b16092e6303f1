import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { connect, createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { tempDir } from "../support/temp-dir.js";
import { runCli } from "./support/cli.js";
import {
  API_KEY,
  freshStore,
  itEachStore,
  startServer,
  type RunningServer,
  type ServerOptions,
  type TestStore,
} from "./support/servers.js";
import { MAX_ID_TEXT as MAX_ID } from "../support/ids.js";

const auth = { authorization: `Bearer ${API_KEY}` };

let temp: ReturnType<typeof tempDir>;
let db: string;
let seed: string;
let running: RunningServer[] = [];
let stores: TestStore[] = [];

beforeEach(() => {
  temp = tempDir();
  db = join(temp.dir, "petstore.db");
  seed = join(temp.dir, "pets.json");
  const pets = Array.from({ length: 20 }, (_, i) => ({
    petId: i + 1,
    name: `Pet ${i + 1}`,
    status: "available",
    quantity: 0,
  }));
  writeFileSync(
    seed,
    JSON.stringify(pets).replace(
      /]$/,
      `,{"petId":${MAX_ID},"name":"Max","status":"sold","quantity":1}]`,
    ),
  );
});
afterEach(async () => {
  await Promise.all(running.map((server) => server.stop("SIGKILL")));
  running = [];
  for (const store of stores) await store.remove();
  stores = [];
  temp.remove();
});

/** Starts a server on `db` (or on `store`: a SQLite file or a PostgreSQL database). */
async function start(
  args: readonly string[] = ["--seed", seed],
  env?: Record<string, string>,
  store: Pick<ServerOptions, "dbPath" | "databaseUrl"> = { dbPath: db },
) {
  const server = await startServer({ ...store, args, ...(env ? { env } : {}) });
  running.push(server);
  return server;
}

/** Runs `petstore serve --port 0 ...args` expecting it to exit on its own. */
const serveToExit = (args: readonly string[], env: Record<string, string>) =>
  runCli(["serve", "--port", "0", ...args], { env });

const setQuantity = (url: string, petId: string | number, quantity: number) =>
  fetch(`${url}/inventory/${petId}`, {
    method: "PATCH",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ quantity }),
  });

const inventoryText = async (url: string) =>
  (await fetch(`${url}/inventory`, { headers: auth })).text();

describe("petstore serve", () => {
  it("prints one listening line on stdout and serves the spec over HTTP", async () => {
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server.stdout()).toBe(`listening on ${server.url}\n`);
    const response = await fetch(`${server.url}/inventory`, { headers: auth });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`{"petId":${MAX_ID},"quantity":1,"status":"sold"}`);
    expect((await fetch(`${server.url.replace(/\/v1$/, "")}/healthz`)).status).toBe(200);
  });

  it("on SIGTERM finishes a request in flight, closes its connection and exits at once", async () => {
    const server = await start();
    const body = '{"quantity":21}';
    const socket = connect(server.port, "127.0.0.1");
    socket.on("error", () => undefined);
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
    const closed = once(socket, "close");
    // With Expect: 100-continue the server says when it has read the head and taken the
    // request: it is then in flight, waiting for its body.
    socket.write(
      `PATCH /v1/inventory/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${API_KEY}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
        `Expect: 100-continue\r\n\r\n`,
    );
    await eventually("100 Continue", () => answer === "HTTP/1.1 100 Continue\r\n\r\n");
    answer = "";
    const exited = server.stop("SIGTERM");
    await eventually("the SIGTERM log line", () => server.stderr().includes("received SIGTERM"));
    socket.write(body);
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    // The server closes the connection with its answer, rather than keeping it alive for 10 s.
    expect(answer.toLowerCase()).toContain("connection: close");
    // So nothing holds the exit: a bound well inside the keep-alive, for a failure only.
    await eventually("the exit", () => server.process.exitCode !== null, { timeoutMs: 5_000 });
    expect(await exited).toBe(0);
    const restarted = await start([]);
    expect(await inventoryText(restarted.url)).toContain('{"petId":1,"quantity":21,');
  });

  it("keeps data across a SIGTERM and a restart, and exits 0", async () => {
    const first = await start();
    expect((await setQuantity(first.url, MAX_ID, 77)).status).toBe(200);
    expect(await first.stop("SIGTERM")).toBe(0);
    const second = await start([]);
    expect(await inventoryText(second.url)).toContain(`{"petId":${MAX_ID},"quantity":77,`);
  });

  it("exits 0 on SIGINT", async () => {
    const server = await start();
    expect(await server.stop("SIGINT")).toBe(0);
  });

  itEachStore("%s: loses no acknowledged write when killed with SIGKILL", async (kind) => {
    const store = await freshStore(kind);
    stores.push(store);
    const server = await start(["--seed", seed], undefined, store.options);
    const expected = new Map<number, number>();
    for (let i = 0; i < 200; i++) {
      const petId = (i % 20) + 1;
      const response = await setQuantity(server.url, petId, i);
      expect(response.status).toBe(200);
      expected.set(petId, i);
    }
    expect(await server.stop("SIGKILL")).toBeNull();
    const restarted = await start([], undefined, store.options);
    const items = JSON.parse(await inventoryText(restarted.url)) as {
      petId: number;
      quantity: number;
    }[];
    for (const [petId, quantity] of expected) {
      expect(items.find((item) => item.petId === petId)?.quantity, `pet ${petId}`).toBe(quantity);
    }
  });

  it("seeds the demo set into an empty store only", async () => {
    const server = await start(["--demo"]);
    const items = JSON.parse(await inventoryText(server.url)) as unknown[];
    expect(items.length).toBeGreaterThan(3);
    expect(await server.stop()).toBe(0);
    const again = await start(["--seed", seed]);
    expect(JSON.parse(await inventoryText(again.url))).toEqual(items);
    expect(again.stderr()).toContain("already holds pets; --seed");
  });

  it("accepts keys from --api-keys-file", async () => {
    const keys = join(temp.dir, "keys.txt");
    writeFileSync(keys, "# comment\nfile-key\n");
    const server = await start(["--api-keys-file", keys], { PETSTORE_API_KEYS: "" });
    const ok = await fetch(`${server.url}/inventory`, {
      headers: { authorization: "Bearer file-key" },
    });
    expect(ok.status).toBe(200);
    expect((await fetch(`${server.url}/inventory`, { headers: auth })).status).toBe(401);
  });

  it("never writes a key or the Authorization header to its logs", async () => {
    const server = await start();
    await fetch(`${server.url}/inventory`, { headers: auth });
    await fetch(`${server.url}/inventory`, { headers: { authorization: "Bearer guessed-key" } });
    await server.stop();
    expect(server.stderr()).toContain('"route":"/v1/inventory"');
    expect(server.stderr()).not.toContain(API_KEY);
    expect(server.stderr()).not.toContain("guessed-key");
  });

  it("refuses to start without a key, saying how to configure one", async () => {
    const result = await serveToExit(["--db", db], {});
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("error: no API key configured");
    expect(result.stderr).toContain("PETSTORE_API_KEYS");
    expect(result.stderr).toContain("--api-keys-file");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    ["not JSON", "[{", "not valid JSON"],
    [
      "a bad entry",
      '[{"petId": 1, "name": "A", "status": "lost", "quantity": 1}]',
      "entry 1: petId 1: status must be one of",
    ],
  ])("fails clearly on a seed file that is %s, creating nothing", async (_what, text, message) => {
    writeFileSync(seed, text);
    const result = await serveToExit(["--db", db, "--seed", seed], {
      PETSTORE_API_KEYS: API_KEY,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: seed file ${seed}: ${message}`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(db)).toBe(false);
  });

  it("fails clearly on a missing seed file and on a port in use", async () => {
    const missing = await serveToExit(["--db", db, "--seed", join(temp.dir, "nope.json")], {
      PETSTORE_API_KEYS: API_KEY,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `error: cannot read seed file ${join(temp.dir, "nope.json")}: no such file or directory\n`,
    );

    const server = await start();
    const port = new URL(server.url).port;
    const busy = await serveToExit(["--db", join(temp.dir, "b.db"), "--port", port], {
      PETSTORE_API_KEYS: API_KEY,
    });
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain(`cannot listen on 127.0.0.1:${port} (EADDRINUSE)`);
    expect(busy.stderr).toContain("hint: another process uses this port: pick another with --port");
    // The database it created for the failed start is gone again, WAL files included.
    expect(readdirSync(temp.dir).filter((name) => name.startsWith("b.db"))).toEqual([]);
  });

  it.each([
    [
      "a host that does not resolve",
      ["--host", "nosuch.invalid"],
      "error: cannot listen on nosuch.invalid:0 (ENOTFOUND)\nhint: no host is named nosuch.invalid: give an address of this machine with --host, such as 127.0.0.1\n",
    ],
    [
      "an address this machine does not have",
      ["--host", "192.0.2.1"],
      "error: cannot listen on 192.0.2.1:0 (EADDRNOTAVAIL)\nhint: this machine has no address 192.0.2.1: give one of its own with --host, or 0.0.0.0 for all\n",
    ],
    [
      "a metrics host that does not resolve",
      ["--metrics-port", "0", "--metrics-host", "nosuch.invalid"],
      "error: cannot serve metrics on nosuch.invalid:0 (ENOTFOUND)\nhint: no host is named nosuch.invalid: give an address of this machine with --metrics-host, such as 127.0.0.1\n",
    ],
  ])(
    "%s: exit 2 naming it, no warning of listening there, no database left",
    async (_what, flags, stderr) => {
      const created = join(temp.dir, "unlistened.db");
      const result = await serveToExit(["--db", created, "--port", "0", ...flags], {
        PETSTORE_API_KEYS: API_KEY,
      });
      expect(result.code).toBe(2);
      // A machine whose resolver cannot be asked says EAI_AGAIN where one that can says no
      // such name (ENOTFOUND): each with its own hint, both exit 2.
      const shown = result.stderr;
      if (shown.includes("(EAI_AGAIN)")) {
        expect(shown).toMatch(
          /^error: cannot (listen|serve metrics) on nosuch\.invalid:0 \(EAI_AGAIN\)\nhint: the name nosuch\.invalid could not be looked up now: /,
        );
      } else {
        expect(shown).toBe(stderr);
      }
      expect(existsSync(created)).toBe(false);
    },
  );

  it("refuses a metrics port in use before the API listens: nothing logged of listening, exit 2", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const { port } = holder.address() as AddressInfo;
    try {
      const created = join(temp.dir, "metrics-taken.db");
      const taken = await serveToExit(
        ["--db", created, "--port", "0", "--metrics-port", String(port)],
        { PETSTORE_API_KEYS: API_KEY },
      );
      expect(taken.code).toBe(2);
      expect(taken.stdout).toBe("");
      expect(taken.stderr).toBe(
        `error: cannot serve metrics on 127.0.0.1:${port} (EADDRINUSE)\nhint: another process uses this port: pick another with --metrics-port\n`,
      );
      expect(existsSync(created)).toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("refuses the API's port given to the metrics too, saying which flags collide", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, "127.0.0.1", () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => {
          resolve(free);
        });
      });
    });
    const created = join(temp.dir, "same-port.db");
    const result = await serveToExit(
      ["--db", created, "--port", String(port), "--metrics-port", String(port)],
      { PETSTORE_API_KEYS: API_KEY },
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `error: cannot listen on 127.0.0.1:${port} (EADDRINUSE)\nhint: the metrics listen on this port (--metrics-port): give the API another with --port, or the metrics another with --metrics-port\n`,
    );
    expect(existsSync(created)).toBe(false);
  });

  it("logs a library's warning as a JSON line, as every line it logs (pg's about sslmode)", async () => {
    const refused = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => {
          resolve(port);
        });
      });
    });
    const result = await serveToExit([], {
      PETSTORE_API_KEYS: API_KEY,
      PETSTORE_DATABASE_URL: `postgres://petstore:s3cret@127.0.0.1:${refused}/petstore?sslmode=require`,
    });
    expect(result.code).toBe(3);
    const [first, ...rest] = result.stderr.split("\n");
    expect(JSON.parse(first ?? "")).toMatchObject({
      level: 40,
      warning: "Warning",
      msg: expect.stringMatching(/^SECURITY WARNING: The SSL modes/) as unknown,
    });
    expect(rest.join("\n")).toMatch(/^error: cannot use PostgreSQL database petstore on /);
    expect(result.stderr).not.toContain("s3cret");

    // Warnings turned off by the operator stay off.
    const quiet = await serveToExit([], {
      PETSTORE_API_KEYS: API_KEY,
      PETSTORE_DATABASE_URL: `postgres://petstore:s3cret@127.0.0.1:${refused}/petstore?sslmode=require`,
      NODE_NO_WARNINGS: "1",
    });
    expect(quiet.code).toBe(3);
    expect(quiet.stderr).toMatch(/^error: cannot use PostgreSQL database petstore on /);
  });

  it("keeps an existing database when it cannot listen", async () => {
    const server = await start(["--seed", seed]);
    const port = new URL(server.url).port;
    const busy = await serveToExit(["--db", db, "--port", port], { PETSTORE_API_KEYS: API_KEY });
    expect(busy.code).toBe(2);
    expect(existsSync(db)).toBe(true);
  });

  it("rejects a bad --port as a usage error", async () => {
    const result = await serveToExit(["--db", db, "--port", "http"], {
      PETSTORE_API_KEYS: API_KEY,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("port");
  });
});

describe("petstore serve --rate-limit", () => {
  it("answers 429 with the Error body once a client passes the limit", async () => {
    const server = await start(["--seed", seed, "--rate-limit", "2"]);
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i++) {
      last = await fetch(`${server.url}/inventory`, { headers: auth });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(last?.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await last?.json()).toMatchObject({ code: "too_many_requests", status: 429 });
  });

  it("rejects a limit that is not a whole number", async () => {
    const result = await serveToExit(["--db", db, "--rate-limit", "ten"], {
      PETSTORE_API_KEYS: API_KEY,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--rate-limit");
  });
});
