/**
 * Failures below HTTP against REAL local sockets: a proxy that never answers CONNECT, a
 * proxy that is down, NO_PROXY (these three through undici, as every run with a proxy
 * variable), a refused connection, and an https server whose certificate is not trusted.
 */
import { once } from "node:events";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  selfSignedCertificate,
  startHttpsServer,
  type LocalHttpsServer,
  type SelfSigned,
} from "../support/local-tls.js";
import { connectingTo } from "../support/undici-redirect.js";
import { closedPort, KEY, runFake } from "./fake-deps.js";

const LIST = '[{"petId":1,"quantity":2,"status":"available"}]';

async function listen(server: Server | HttpServer): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

/** A "proxy" that accepts connections, records what it is sent, and never answers. */
async function startSilentProxy() {
  const sockets: Socket[] = [];
  let received = "";
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on("data", (chunk) => (received += chunk.toString()));
    socket.on("error", () => undefined);
  });
  const port = await listen(server);
  return {
    address: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}`,
    received: () => received,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

function env(more: Record<string, string>) {
  return { PETSTORE_API_KEY: KEY, ...more };
}

describe("through a proxy", () => {
  let proxy: Awaited<ReturnType<typeof startSilentProxy>>;

  beforeAll(async () => {
    proxy = await startSilentProxy();
  });
  afterAll(async () => {
    await proxy.close();
  });

  it.each([
    ["an https target through HTTPS_PROXY", "https://petstore.invalid/v1", "HTTPS_PROXY", ":443"],
    ["an http target through HTTP_PROXY", "http://petstore.invalid/v1", "HTTP_PROXY", ":80"],
  ])(
    "times out a proxy that never answers CONNECT (%s): exit 3 within --timeout",
    async (_name, baseUrl, variable, port) => {
      const result = await runFake(
        ["--base-url", baseUrl, "--timeout", "500", "--retries", "0", "inventory", "list"],
        { env: env({ [variable]: proxy.url }) },
      );
      expect(proxy.received()).toContain(`CONNECT petstore.invalid${port} HTTP/1.1`);
      expect(result.code).toBe(3);
      // An http:// target beyond loopback is warned of first: the key would go in clear.
      const warning = baseUrl.startsWith("http:")
        ? "warning: the API key goes to http://petstore.invalid unencrypted, readable on the network between: use an https:// URL (petstore serve --tls-cert, or a TLS-terminating proxy)\n"
        : "";
      expect(result.stderr).toBe(
        warning +
          `error: GET ${baseUrl}/inventory via proxy ${proxy.address} timed out: no answer within 500 ms\n` +
          `hint: tried ${baseUrl} (from --base-url) via proxy ${proxy.address} (from ${variable}), 1 attempt; raise --timeout, or check the proxy: ${variable}, and NO_PROXY for hosts that must not use it\n`,
      );
    },
    // Without the bound the run never ends; with it, about 0.5 s (undici's coarse timers: ~1 s).
    10_000,
  );

  it("names a proxy that is down, not the server (exit 3)", async () => {
    const port = await closedPort();
    const result = await runFake(
      ["--base-url", "https://petstore.invalid/v1", "--retries", "1", "inventory", "list"],
      { env: env({ https_proxy: `http://user:secret@127.0.0.1:${port}` }) },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `error: cannot reach https://petstore.invalid/v1/inventory via proxy 127.0.0.1:${port}: connection refused (ECONNREFUSED)\n` +
        `hint: tried https://petstore.invalid/v1 (from --base-url) via proxy 127.0.0.1:${port} (from https_proxy), 2 attempts; is the proxy running? Check https_proxy, and NO_PROXY for hosts that must not use it\n`,
    );
    expect(result.stderr).not.toContain("secret");
  }, 10_000);

  it("goes direct to a host in NO_PROXY, and says nothing of the proxy", async () => {
    const server = createHttpServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(LIST);
    });
    const port = await listen(server);
    try {
      const result = await runFake(
        ["--base-url", `http://127.0.0.1:${port}/v1`, "--retries", "0", "inventory", "list"],
        {
          env: env({ HTTP_PROXY: `http://127.0.0.1:${await closedPort()}`, NO_PROXY: "127.0.0.1" }),
        },
      );
      expect(result).toMatchObject({ code: 0, stdout: "1\t2\tavailable\n", stderr: "" });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 10_000);
});

describe("a refused connection on this machine, where petstore serve could listen", () => {
  it("--env local says how to start the bundled server, with the key the CLI sends", async () => {
    // Port 4010 may be in use on this machine (a demo): the run's connections to it go to a
    // closed port instead, through an undici dispatcher (the proxy transport), and are refused.
    const dispatcher = connectingTo(await closedPort());
    const result = await runFake(["--env", "local", "inventory", "list"], {
      dispatcher,
      env: env({}),
    }).finally(() => dispatcher.close());
    expect(result).toMatchObject({
      code: 3,
      stdout: "",
      stderr:
        "error: cannot reach http://127.0.0.1:4010/v1/inventory: connection refused (ECONNREFUSED)\n" +
        'hint: tried http://127.0.0.1:4010/v1 (from --env local), 3 attempts, and nothing listens there; if your store is served from here, start its server (petstore serve with its --db or PETSTORE_DATABASE_URL); to try petstore with demo data: PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo\n',
    });
  });

  it("a loopback --base-url names its port, and hands the server the key read from the key file", async () => {
    const port = await closedPort();
    const baseUrl = `http://127.0.0.1:${port}/v1`;
    const result = await runFake(
      ["--base-url", baseUrl, "--retries", "0", "inventory", "set", "42", "7"],
      {
        env: { PETSTORE_API_KEY_FILE: "/run/secrets/petstore-key" },
        files: { "/run/secrets/petstore-key": `${KEY}\n` },
      },
    );
    expect(result).toMatchObject({
      code: 3,
      stdout: "",
      stderr:
        `error: cannot reach ${baseUrl}/inventory/42: connection refused (ECONNREFUSED)\n` +
        `hint: tried ${baseUrl} (from --base-url), 1 attempt, and nothing listens there; if your store is served from here, start its server (petstore serve with its --db or PETSTORE_DATABASE_URL); to try petstore with demo data: PETSTORE_API_KEYS="$(cat "$PETSTORE_API_KEY_FILE")" petstore serve --demo --port ${port}\n`,
    });
  }, 10_000);
});

describe("an https server whose certificate is not trusted", () => {
  let certificate: SelfSigned;
  let server: LocalHttpsServer;

  beforeAll(async () => {
    certificate = selfSignedCertificate();
    server = await startHttpsServer(certificate, LIST);
  });
  afterAll(async () => {
    await server.close();
    certificate.remove();
  });

  it("is refused at once, not retried: exit 3 with how to trust a private CA", async () => {
    const before = server.connections();
    const result = await runFake(["--base-url", server.baseUrl, "inventory", "list"], {
      env: env({}),
    });
    const host = new URL(server.baseUrl).host;
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `error: cannot reach ${server.baseUrl}/inventory: the server's certificate is not trusted: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)\n` +
        `hint: if ${host} uses a private CA (or a self-signed certificate), trust it: NODE_EXTRA_CA_CERTS=/path/ca.pem petstore ...\n`,
    );
    expect(server.connections() - before).toBe(1);
    expect(result.sleeps).toEqual([]);
  }, 10_000);
});

describe("an https URL at a server that speaks plain HTTP", () => {
  let server: HttpServer;
  let port: number;
  let connections = 0;

  beforeAll(async () => {
    server = createHttpServer((_request, response) => response.end(LIST));
    server.on("connection", () => (connections += 1));
    port = await listen(server);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("is one attempt, not retried: exit 3 saying it speaks plain HTTP and to use http://", async () => {
    const before = connections;
    const baseUrl = `https://127.0.0.1:${port}/v1`;
    const result = await runFake(["--retries", "2", "inventory", "list"], {
      env: env({ PETSTORE_BASE_URL: baseUrl }),
    });
    expect(result).toMatchObject({
      code: 3,
      stdout: "",
      stderr:
        `error: cannot reach ${baseUrl}/inventory: the server there speaks plain HTTP, not HTTPS (TLS: wrong version number)\n` +
        `hint: use http://127.0.0.1:${port}/v1 in place of ${baseUrl} (from PETSTORE_BASE_URL)\n`,
      sleeps: [],
    });
    expect(connections - before).toBe(1);
  }, 10_000);
});
