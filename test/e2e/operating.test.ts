/**
 * Operating the real server process: SIGHUP reloads the keys file under load (a removed key
 * is refused from the reload on, the others never fail, a request in flight finishes; a broken
 * file changes nothing but the metric and a log line naming FILE:LINE), the metrics listener,
 * and /readyz turning 503 the moment SIGTERM arrives.
 */
import { writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keysFileLine } from "../../src/api/api-keys.js";
import { rawConnection } from "../server/raw-http.js";
import { eventually } from "../support/eventually.js";
import { tempDir } from "../support/temp-dir.js";
import { runCli } from "./support/cli.js";
import { startServer } from "./support/servers.js";
import { logLine, metricsUrlOf, sampleOf } from "./support/server-output.js";

const KEYS = {
  till: "till-1-key-8c1f0e",
  spare: "till-2-key-73a9d4",
  cron: "cron-key-2be5f1",
  audit: "audit-key-9d04aa",
};

function keysFile(...names: (keyof typeof KEYS)[]): string {
  const line = (name: keyof typeof KEYS) =>
    keysFileLine(
      name === "till" ? "till-1" : name === "spare" ? "till-2" : name,
      name === "cron" || name === "audit" ? "read" : "write",
      KEYS[name],
    );
  return `# petstore keys\n${names.map(line).join("\n")}\n`;
}

let temp: { dir: string; remove(): void };
let keysPath: string;
beforeEach(() => {
  temp = tempDir();
  keysPath = join(temp.dir, "keys");
});
afterEach(() => {
  temp.remove();
});

async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

/** The order of a test's events across its loops: a counter, not a clock. */
interface Order {
  step: number;
}

interface Answer {
  /** The step at which the request was sent, and at which its answer was read. */
  sent: number;
  answered: number;
  status: number;
}

/** GETs the inventory with `key` over and over until stopped; `answers` grows as it goes. */
function readLoop(
  url: string,
  key: string,
  order: Order,
): { answers: Answer[]; stop(): Promise<Answer[]> } {
  const answers: Answer[] = [];
  const stopped = new AbortController();
  const loop = (async () => {
    while (!stopped.signal.aborted) {
      const sent = ++order.step;
      const response = await fetch(`${url}/inventory`, {
        headers: { authorization: `Bearer ${key}` },
      });
      await response.arrayBuffer();
      answers.push({ sent, answered: ++order.step, status: response.status });
    }
  })();
  return {
    answers,
    async stop() {
      stopped.abort();
      await loop;
      return answers;
    },
  };
}

describe("SIGHUP: reloading the keys file of a running server", () => {
  it("refuses a removed key from the reload on while the other keys never fail, and keeps serving", async () => {
    writeFileSync(keysPath, keysFile("till", "spare", "cron", "audit"));
    const server = await startServer({
      args: ["--api-keys-file", keysPath, "--metrics-port", "0", "--demo"],
      env: { PETSTORE_API_KEYS: "" },
    });
    const metricsUrl = await metricsUrlOf(server);
    try {
      // A write with the key about to be removed, in flight: its body not yet sent. The
      // server's 100 Continue says it has read the head and taken the request.
      const inFlight = rawConnection(server.port);
      const body = '{"quantity":17}';
      inFlight.socket.write(
        `PATCH /v1/inventory/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEYS.spare}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      );
      await eventually("100 Continue", () => inFlight.received().startsWith("HTTP/1.1 100 "));

      const order: Order = { step: 0 };
      const loops = [KEYS.till, KEYS.audit, KEYS.cron].map((key) =>
        readLoop(server.url, key, order),
      );
      const answeredAfter = (step: number) =>
        loops.every(({ answers }) => answers.filter(({ sent }) => sent > step).length >= 5);
      await eventually("five answers to each key", () => answeredAfter(0));
      writeFileSync(keysPath, keysFile("till", "audit"));
      const signalled = ++order.step;
      server.process.kill("SIGHUP");
      await eventually("the reload, counted in the metrics", async () => {
        const text = await scrape(metricsUrl);
        return sampleOf(text, 'petstore_keys_reloads_total{result="success"}') === 1;
      });
      const reloadedAt = ++order.step;
      await eventually("five answers to each key sent after the reload", () =>
        answeredAfter(reloadedAt),
      );
      const [till = [], audit = [], cron = []] = await Promise.all(
        loops.map((loop) => loop.stop()),
      );

      for (const answers of [till, audit]) {
        expect(answers.filter(({ status }) => status !== 200)).toEqual([]);
      }
      // The removed key: accepted until the signal, refused from the reload on, and once
      // refused, always refused.
      const beforeSignal = cron.filter(({ answered }) => answered < signalled);
      expect(beforeSignal.length).toBeGreaterThanOrEqual(5);
      expect(beforeSignal.filter(({ status }) => status !== 200)).toEqual([]);
      const afterReload = cron.filter(({ sent }) => sent > reloadedAt);
      expect(afterReload.length).toBeGreaterThanOrEqual(5);
      expect(afterReload.filter(({ status }) => status !== 401)).toEqual([]);
      const refusedFrom = cron.findIndex(({ status }) => status === 401);
      expect(cron.slice(refusedFrom).filter(({ status }) => status !== 401)).toEqual([]);

      // The write authenticated before the reload finishes as it began.
      inFlight.socket.write(body);
      await eventually("the write's answer", () => inFlight.received().includes('"quantity":17'));
      expect(inFlight.received()).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
      inFlight.socket.destroy();

      const reloaded = JSON.parse(await logLine(server, /keys reloaded/)) as Record<
        string,
        unknown
      >;
      expect(reloaded).toMatchObject({ keys: 2, removed: ["till-2", "cron"], added: [] });
      expect(server.stderr()).not.toContain(KEYS.cron);
      const text = await scrape(metricsUrl);
      expect(sampleOf(text, "petstore_api_keys_loaded")).toBe(2);
      expect(sampleOf(text, "petstore_keys_last_reload_successful")).toBe(1);
      expect(sampleOf(text, 'petstore_keys_reloads_total{result="success"}')).toBe(1);
      expect(server.process.exitCode).toBeNull();
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("keeps every key when the new file is broken: only the metric and a log line naming FILE:LINE change", async () => {
    writeFileSync(keysPath, keysFile("till", "cron"));
    const server = await startServer({
      args: ["--api-keys-file", keysPath, "--metrics-port", "0"],
      env: { PETSTORE_API_KEYS: "" },
    });
    const metricsUrl = await metricsUrlOf(server);
    try {
      const before = await scrape(metricsUrl);
      writeFileSync(keysPath, `${keysFile("till")}cron reader sha256:abc\n`);
      server.process.kill("SIGHUP");
      const refused = JSON.parse(await logLine(server, /keys file refused/)) as {
        msg: string;
        level: number;
      };
      expect(refused.msg).toBe(
        `keys file refused, the old keys stay: ${keysPath}:3: unknown scope: a scope is read or write`,
      );
      expect(refused.level).toBe(50);
      for (const key of [KEYS.till, KEYS.cron]) {
        const response = await fetch(`${server.url}/inventory`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(response.status).toBe(200);
      }
      const after = await scrape(metricsUrl);
      expect(sampleOf(after, "petstore_keys_last_reload_successful")).toBe(0);
      expect(sampleOf(after, 'petstore_keys_reloads_total{result="failure"}')).toBe(1);
      expect(sampleOf(after, "petstore_api_keys_loaded")).toBe(2);
      expect(sampleOf(after, "petstore_keys_last_reload_success_timestamp_seconds")).toBe(
        sampleOf(before, "petstore_keys_last_reload_success_timestamp_seconds"),
      );
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe("the metrics listener", () => {
  it("serves /metrics on its own loopback port, not on the API's, with route templates as labels", async () => {
    const server = await startServer({ args: ["--metrics-port", "0", "--demo"] });
    const metricsUrl = await metricsUrlOf(server);
    try {
      expect(new URL(metricsUrl).hostname).toBe("127.0.0.1");
      const list = await runCli(["inventory", "list", "--json"], {
        env: { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: "e2e-key-4b9f2c" },
      });
      expect(list.code).toBe(0);
      const onApi = await fetch(`${server.url.replace(/\/v1$/, "")}/metrics`);
      expect(onApi.status).toBe(404);
      const text = await scrape(metricsUrl);
      expect(text).toContain(
        'http_request_duration_seconds_count{method="GET",route="/v1/inventory",status_code="200"} 1',
      );
      expect(sampleOf(text, "petstore_store_up")).toBe(1);
      expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
      expect((await fetch(metricsUrl.replace("/metrics", "/other"))).status).toBe(404);
      expect((await fetch(metricsUrl, { method: "POST" })).status).toBe(405);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("refuses to start when the metrics port is taken: exit 2, naming it, and no database left behind", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    const db = join(temp.dir, "new.db");
    const result = await runCli(
      ["serve", "--port", "0", "--db", db, "--metrics-port", String(port)],
      {
        env: { PETSTORE_API_KEYS: "k" },
      },
    );
    taken.close();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`cannot serve metrics on 127.0.0.1:${port} (EADDRINUSE)`);
    expect(result.stderr).toContain("--metrics-port");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const { existsSync } = await import("node:fs");
    expect(existsSync(db)).toBe(false);
  });
});

describe("SIGTERM and the probes", () => {
  it("answers /readyz 503 at once while a request in flight finishes, then exits 0", async () => {
    const server = await startServer({ args: ["--demo"] });
    const body = '{"quantity":6}';
    const inFlight = rawConnection(server.port);
    inFlight.socket.write(
      `PATCH /v1/inventory/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer e2e-key-4b9f2c\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    const probe = rawConnection(server.port);
    probe.socket.write("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\n");
    await eventually("the first /readyz answer", () =>
      probe.received().includes('{"status":"ok"}'),
    );

    server.process.kill("SIGTERM");
    await eventually("the SIGTERM log line", () => server.stderr().includes("received SIGTERM"));
    probe.socket.write("Host: x\r\n\r\n");
    await eventually(
      "the second /readyz answer",
      () => probe.received().split("HTTP/1.1 ").length === 3,
    );
    const second = probe.received().slice(probe.received().indexOf("HTTP/1.1", 1));
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toContain(
      '{"code":"unavailable","message":"not ready (draining): the server is shutting down","status":503}',
    );
    expect(server.process.exitCode).toBeNull();

    inFlight.socket.write(body);
    await inFlight.closed;
    expect(inFlight.received()).toMatch(/^HTTP\/1\.1 200 /);
    // With the last request answered, the server closes by itself.
    await eventually("the exit", () => server.process.exitCode !== null);
    expect(await server.stop()).toBe(0);
  });
});
