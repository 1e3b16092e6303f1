/** A self-signed certificate for 127.0.0.1 made with the openssl CLI, and an https server using it. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SelfSigned {
  /** PEM files: the certificate doubles as the CA to trust. */
  certPath: string;
  cert: string;
  key: string;
  remove: () => void;
}

/** Generates a one-day EC certificate for CN=localhost, IP 127.0.0.1. */
export function selfSignedCertificate(): SelfSigned {
  const dir = mkdtempSync(join(tmpdir(), "petstore-tls-"));
  const certPath = join(dir, "cert.pem");
  const keyPath = join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-days",
      "1",
      "-keyout",
      keyPath,
      "-out",
      certPath,
    ],
    { stdio: "ignore", timeout: 10_000 },
  );
  return {
    certPath,
    cert: readFileSync(certPath, "utf8"),
    key: readFileSync(keyPath, "utf8"),
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface LocalHttpsServer {
  baseUrl: string;
  /** TCP connections accepted so far (a failed handshake still counts one). */
  connections: () => number;
  close: () => Promise<void>;
}

/** An https server on 127.0.0.1 answering `GET /v1/inventory` with `inventory` (JSON text). */
export async function startHttpsServer(
  certificate: SelfSigned,
  inventory: string,
): Promise<LocalHttpsServer> {
  let connections = 0;
  const server: Server = createServer(
    { cert: certificate.cert, key: certificate.key },
    (request, response) => {
      const found = request.url === "/v1/inventory";
      response.writeHead(found ? 200 : 404, { "content-type": "application/json" });
      response.end(
        found ? inventory : '{"code":"not_found","message":"no such route","status":404}',
      );
    },
  );
  server.on("connection", () => {
    connections += 1;
  });
  // A client refusing the certificate drops the handshake; that is the point, not an error.
  server.on("tlsClientError", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `https://127.0.0.1:${port}/v1`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
