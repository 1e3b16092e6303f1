/**
 * `petstore serve --tls-cert --tls-key`, the real server and CLI with certificates of a private
 * CA made by the test (openssl): the API over HTTPS, the CLI trusting the CA through
 * NODE_EXTRA_CA_CERTS, nothing served in clear on the TLS port, a renewal by SIGHUP under load
 * with no request failing, a broken pair on SIGHUP changing nothing, the start refusals; and
 * the CLI's warning before it sends a key over http:// to another machine.
 */
import { once } from "node:events";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { request as httpsRequest, Agent } from "node:https";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { join } from "node:path";
import { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateCa, type IssuedCertificate, type PrivateCa } from "../support/local-tls.js";
import { eventually } from "../support/eventually.js";
import { tempDir } from "../support/temp-dir.js";
import { runCli } from "./support/cli.js";
import { logLine, metricsUrlOf, sampleOf } from "./support/server-output.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

const SEED = [
  { petId: 1, name: "Rex", status: "available" as const, quantity: 4 },
  { petId: 2, name: "Tom", status: "pending" as const, quantity: 7 },
];

interface Answer {
  status: number;
  body: string;
  /** SHA-256 of the certificate the connection was served. */
  fingerprint: string;
}

/** One GET over https trusting only `ca`, on `agent`'s connections (a new one without). */
async function get(url: string, ca: string, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      url,
      {
        ca,
        headers: { authorization: `Bearer ${API_KEY}` },
        ...(agent ? { agent } : { agent: false }),
      },
      (response) => {
        const socket = response.socket;
        if (!(socket instanceof TLSSocket)) throw new Error("not a TLS connection");
        const fingerprint = socket.getPeerCertificate().fingerprint256;
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => {
          resolve({ status: response.statusCode ?? 0, body, fingerprint });
        });
      },
    );
    request.on("error", reject);
    request.end();
  });
}

/** What a client gets back for plain HTTP sent to the port, until the server closes it. */
async function plainHttpTo(port: number): Promise<Buffer> {
  const socket = connect(port, "127.0.0.1");
  await once(socket, "connect");
  const received: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => received.push(chunk));
  socket.write(
    `GET /v1/inventory HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${API_KEY}\r\n\r\n`,
  );
  await Promise.race([
    once(socket, "close"),
    new Promise((_, reject) =>
      setTimeout(() => {
        reject(new Error("still open after 5 s"));
      }, 5000),
    ),
  ]);
  return Buffer.concat(received);
}

describe("petstore serve over TLS (a private CA, the chain served whole)", () => {
  let ca: PrivateCa;
  let first: IssuedCertificate;
  let live: { dir: string; remove(): void };
  let certPath: string;
  let keyPath: string;
  let server: RunningServer;
  let caPem: string;
  let metricsUrl = "";
  const scrape = async () => (await fetch(metricsUrl)).text();
  /** Puts `issued`'s files where the server reads its pair, as a renewal would. */
  const install = (issued: { certPath: string; keyPath: string }) => {
    copyFileSync(issued.certPath, certPath);
    copyFileSync(issued.keyPath, keyPath);
  };

  beforeAll(async () => {
    ca = privateCa();
    caPem = readFileSync(ca.caPath, "utf8");
    // Through an intermediate: the client trusts the root alone, so it must be served.
    first = ca.issue("server-1", { viaIntermediate: true });
    live = tempDir("petstore-tls-live-");
    certPath = join(live.dir, "fullchain.pem");
    keyPath = join(live.dir, "privkey.pem");
    install(first);
    server = await startServer({
      seed: SEED,
      args: ["--tls-cert", certPath, "--tls-key", keyPath, "--metrics-port", "0"],
    });
    metricsUrl = await metricsUrlOf(server);
  });

  afterAll(async () => {
    await server.stop();
    live.remove();
    ca.remove();
  });

  it("says https, and serves the CLI trusting the CA; without the CA the CLI refuses, saying how", async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server.stderr()).not.toContain("without TLS");
    const trusted = { PETSTORE_API_KEY: API_KEY, NODE_EXTRA_CA_CERTS: ca.caPath };
    const args = ["--base-url", server.url, "inventory"];
    expect(await runCli([...args, "set", "2", "9"], { env: trusted })).toMatchObject({
      code: 0,
      stderr: "",
    });
    expect(await runCli([...args, "list"], { env: trusted })).toEqual({
      code: 0,
      stdout: "1\t4\tavailable\n2\t9\tpending\n",
      stderr: "",
    });
    const untrusted = await runCli([...args, "list"], { env: { PETSTORE_API_KEY: API_KEY } });
    expect(untrusted.code).toBe(3);
    expect(untrusted.stdout).toBe("");
    expect(untrusted.stderr).toContain("the server's certificate is not trusted");
    expect(untrusted.stderr).toContain("NODE_EXTRA_CA_CERTS=/path/ca.pem");
  });

  it("serves nothing in clear on the TLS port: plain HTTP gets the connection closed, and the CLI a hint", async () => {
    const received = await plainHttpTo(server.port);
    expect(received.toString("latin1")).not.toContain("HTTP/");
    expect(received.toString("latin1")).not.toContain("inventory");
    expect(received.length).toBe(0);

    // The log names the client that sent it, to be told its URL is https:// now.
    const logged = await logLine(server, /plain HTTP sent to the HTTPS port/);
    expect(JSON.parse(logged)).toMatchObject({
      level: 30,
      client: "127.0.0.1",
      code: "ERR_SSL_HTTP_REQUEST",
      msg: "plain HTTP sent to the HTTPS port by 127.0.0.1, answered with nothing: its URL must start with https://",
    });
    expect(server.stderr()).not.toContain(API_KEY);

    const plainUrl = server.url.replace(/^https:/, "http:");
    const plain = await runCli(["--base-url", plainUrl, "--retries", "0", "inventory", "list"], {
      env: { PETSTORE_API_KEY: API_KEY },
    });
    expect(plain).toEqual({
      code: 3,
      stdout: "",
      stderr:
        `error: cannot reach ${plainUrl}/inventory: connection reset by the server (ECONNRESET)\n` +
        `hint: tried ${plainUrl} (from --base-url), 1 attempt; is the server running and the URL right (https:// if it serves TLS)?\n`,
    });
  });

  it("renews on SIGHUP under load: new connections get the new certificate, open ones finish on the old, no request fails", async () => {
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = await get(`${server.url}/inventory/1`, caPem, keepAlive);
    expect(before).toMatchObject({ status: 200, fingerprint: first.fingerprint256 });

    // Four clients loop through the reload: two on new connections, two kept alive.
    let running = true;
    const failures: string[] = [];
    const seen = new Set<string>();
    let answered = 0;
    const client = async (agent: Agent | undefined) => {
      while (running) {
        try {
          const answer = await get(`${server.url}/inventory/1`, caPem, agent);
          if (answer.status !== 200) failures.push(`status ${answer.status}: ${answer.body}`);
          seen.add(answer.fingerprint);
          answered += 1;
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const agents = [
      undefined,
      undefined,
      new Agent({ keepAlive: true }),
      new Agent({ keepAlive: true }),
    ];
    const load = Promise.all(agents.map(client));
    await eventually("the load to run", () => answered >= 20);

    const second = ca.issue("server-2", { viaIntermediate: true, days: 2 });
    install(second);
    server.process.kill("SIGHUP");
    const line = await logLine(server, /TLS certificate reloaded from/);
    const afterReload = answered;
    await eventually("the load to go on", () => answered >= afterReload + 20);
    running = false;
    await load;
    for (const agent of agents) agent?.destroy();

    expect(failures).toEqual([]);
    expect(seen).toContain(first.fingerprint256);
    expect(seen).toContain(second.fingerprint256);
    // A new connection gets the new certificate; the connection opened before keeps the old.
    expect(await get(`${server.url}/inventory/1`, caPem)).toMatchObject({
      status: 200,
      fingerprint: second.fingerprint256,
    });
    expect(await get(`${server.url}/inventory/1`, caPem, keepAlive)).toMatchObject({
      status: 200,
      fingerprint: first.fingerprint256,
    });
    keepAlive.destroy();

    expect(JSON.parse(line)).toMatchObject({
      level: 30,
      file: certPath,
      subject: "CN=server-2",
      notAfter: new Date(second.notAfter).toISOString(),
    });
    const metrics = await scrape();
    expect(sampleOf(metrics, "petstore_tls_certificate_expiry_timestamp_seconds")).toBe(
      second.notAfter / 1000,
    );
    expect(sampleOf(metrics, 'petstore_tls_reloads_total{result="success"}')).toBe(1);
    expect(sampleOf(metrics, "petstore_tls_last_reload_successful")).toBe(1);
  }, 60_000);

  it("keeps the pair it serves when SIGHUP finds a broken one, and says which file and why", async () => {
    const served = await get(`${server.url}/inventory/1`, caPem);
    const expiry = sampleOf(await scrape(), "petstore_tls_certificate_expiry_timestamp_seconds");
    // A renewal gone wrong: the new certificate, with the key of another.
    const third = ca.issue("server-3");
    const other = ca.issue("server-4");
    install({ certPath: third.certPath, keyPath: other.keyPath });
    server.process.kill("SIGHUP");
    const line = await logLine(server, /TLS certificate refused/);
    expect(JSON.parse(line)).toMatchObject({
      level: 50,
      file: keyPath,
      msg: `TLS certificate refused, the old one stays: ${keyPath}: this key does not match the certificate in ${certPath} (the first certificate there must be the server's own, and this its key)`,
    });
    expect(await get(`${server.url}/inventory/1`, caPem)).toMatchObject({
      status: 200,
      fingerprint: served.fingerprint,
    });
    const cli = await runCli(["--base-url", server.url, "inventory", "get", "1"], {
      env: { PETSTORE_API_KEY: API_KEY, NODE_EXTRA_CA_CERTS: ca.caPath },
    });
    expect(cli).toMatchObject({ code: 0, stderr: "" });
    const metrics = await scrape();
    expect(sampleOf(metrics, "petstore_tls_certificate_expiry_timestamp_seconds")).toBe(expiry);
    expect(sampleOf(metrics, 'petstore_tls_reloads_total{result="failure"}')).toBe(1);
    expect(sampleOf(metrics, "petstore_tls_last_reload_successful")).toBe(0);
  });
});

describe("petstore serve refuses a TLS pair it cannot serve, before it opens the store", () => {
  let ca: PrivateCa;
  let temp: { dir: string; remove(): void };
  beforeAll(() => {
    ca = privateCa();
    temp = tempDir("petstore-tls-refusals-");
  });
  afterAll(() => {
    temp.remove();
    ca.remove();
  });

  const serve = async (tlsArgs: readonly string[]) => {
    const db = join(temp.dir, "never.db");
    const result = await runCli(["serve", "--port", "0", "--db", db, ...tlsArgs], {
      env: { PETSTORE_API_KEYS: API_KEY },
    });
    expect(existsSync(db)).toBe(false);
    return result;
  };

  it("exit 2 for one of the two flags alone, naming the missing one", async () => {
    const pair = ca.issue("alone");
    expect(await serve(["--tls-cert", pair.certPath])).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "error: --tls-cert needs --tls-key (the certificate's private key, PEM)\n" +
        "hint: pass both --tls-cert FILE and --tls-key FILE to serve HTTPS, or neither for plain HTTP\n",
    });
    expect(await serve(["--tls-key", pair.keyPath])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: --tls-key needs --tls-cert \(/) as unknown,
    });
  });

  it("exit 2 for a file it cannot read, a key of another certificate, and files swapped", async () => {
    const pair = ca.issue("refused");
    const other = ca.issue("another");
    const missing = join(temp.dir, "missing.pem");
    expect(await serve(["--tls-cert", missing, "--tls-key", pair.keyPath])).toEqual({
      code: 2,
      stdout: "",
      stderr: `error: ${missing}: cannot read the certificate (no such file or directory)\n`,
    });
    expect(await serve(["--tls-cert", pair.certPath, "--tls-key", other.keyPath])).toEqual({
      code: 2,
      stdout: "",
      stderr: `error: ${other.keyPath}: this key does not match the certificate in ${pair.certPath} (the first certificate there must be the server's own, and this its key)\n`,
    });
    expect(await serve(["--tls-cert", pair.keyPath, "--tls-key", pair.certPath])).toEqual({
      code: 2,
      stdout: "",
      stderr: `error: ${pair.keyPath}: a private key, not a certificate: are --tls-cert and --tls-key swapped?\n`,
    });
  });
});

describe("the CLI sending a key over http:// beyond loopback", () => {
  let server: RunningServer;
  let tunnel: { port: number; connects: string[]; close(): Promise<void> };

  beforeAll(async () => {
    server = await startServer({ seed: SEED });
    // An HTTP proxy that tunnels every CONNECT to the server: the CLI names another machine.
    const connects: string[] = [];
    const proxy = createServer();
    const sockets = new Set<Socket>();
    proxy.on("connection", (socket: Socket) => {
      sockets.add(socket);
      socket.once("data", (head: Buffer) => {
        connects.push(head.toString("latin1").split("\r\n")[0] ?? "");
        const upstream = connect(server.port, "127.0.0.1", () => {
          socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
          socket.pipe(upstream).pipe(socket);
        });
        upstream.on("error", () => socket.destroy());
        socket.on("error", () => upstream.destroy());
      });
    });
    proxy.listen(0, "127.0.0.1");
    await once(proxy, "listening");
    tunnel = {
      port: (proxy.address() as AddressInfo).port,
      connects,
      close: () =>
        new Promise((resolve) => {
          for (const socket of sockets) socket.destroy();
          proxy.close(() => {
            resolve();
          });
        }),
    };
  });

  afterAll(async () => {
    await tunnel.close();
    await server.stop();
  });

  it("warns once on stderr and goes on: the output and the exit code are unchanged", async () => {
    const result = await runCli(
      ["--base-url", "http://till-server.shop.test:4010/v1", "inventory", "list"],
      {
        env: {
          PETSTORE_API_KEY: API_KEY,
          HTTP_PROXY: `http://127.0.0.1:${tunnel.port}`,
        },
      },
    );
    expect(tunnel.connects).toEqual(["CONNECT till-server.shop.test:4010 HTTP/1.1"]);
    expect(result).toEqual({
      code: 0,
      stdout: "1\t4\tavailable\n2\t7\tpending\n",
      stderr:
        "warning: the API key goes to http://till-server.shop.test:4010 unencrypted, readable on the network between: use an https:// URL (petstore serve --tls-cert, or a TLS-terminating proxy)\n",
    });
  });

  it("says nothing for loopback", async () => {
    const result = await runCli(["--base-url", server.url, "inventory", "list"], {
      env: { PETSTORE_API_KEY: API_KEY },
    });
    expect(result).toEqual({ code: 0, stdout: "1\t4\tavailable\n2\t7\tpending\n", stderr: "" });
  });
});
