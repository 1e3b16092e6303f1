/**
 * Certificates made with the openssl CLI: a self-signed one for 127.0.0.1 and an https server
 * using it; a private CA (root, and an intermediate) that issues server certificates.
 */
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** A certificate a PrivateCa issued: PEM files, and the SHA-256 fingerprint Node shows for it. */
export interface IssuedCertificate {
  /** The server's certificate, then the intermediate's when issued through one. */
  certPath: string;
  keyPath: string;
  fingerprint256: string;
  /** The end of its validity, Unix ms. */
  notAfter: number;
}

/** A shop's own CA, made with the openssl CLI, that issues server certificates for 127.0.0.1. */
export interface PrivateCa {
  /** The root certificate a client trusts (NODE_EXTRA_CA_CERTS). */
  caPath: string;
  dir: string;
  /**
   * A new key and certificate for CN=`name`, IP 127.0.0.1 and DNS localhost, valid `days`
   * (1 by default), signed by the root or, with `viaIntermediate`, by an intermediate CA whose
   * certificate then follows the server's in `certPath`.
   */
  issue(name: string, options?: { days?: number; viaIntermediate?: boolean }): IssuedCertificate;
  remove(): void;
}

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

function openssl(args: readonly string[], cwd: string): void {
  execFileSync("openssl", args, { cwd, stdio: "ignore", timeout: 10_000 });
}

/** Makes a root CA (and, on first need, an intermediate) in a temporary directory. */
export function privateCa(): PrivateCa {
  const dir = mkdtempSync(join(tmpdir(), "petstore-ca-"));
  openssl(
    ["req", "-x509", ...EC_KEY, "-subj", "/CN=Test Shop Root CA", "-days", "2"].concat([
      "-keyout",
      "root.key",
      "-out",
      "root.pem",
    ]),
    dir,
  );
  writeFileSync(
    join(dir, "intermediate.ext"),
    "basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n",
  );
  writeFileSync(
    join(dir, "server.ext"),
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
  );
  let intermediate = false;
  let serial = 0;
  const sign = (name: string, issuer: string, ext: string, days: number) => {
    serial += 1;
    openssl(
      ["req", ...EC_KEY, "-subj", `/CN=${name}`, "-keyout", `${name}.key`, "-out", `${name}.csr`],
      dir,
    );
    openssl(
      ["x509", "-req", "-in", `${name}.csr`, "-CA", `${issuer}.pem`, "-CAkey", `${issuer}.key`]
        .concat(["-set_serial", String(serial), "-days", String(days), "-extfile", ext])
        .concat(["-out", `${name}.pem`]),
      dir,
    );
  };
  return {
    caPath: join(dir, "root.pem"),
    dir,
    issue(name, options = {}) {
      const via = options.viaIntermediate === true;
      if (via && !intermediate) {
        sign("intermediate", "root", "intermediate.ext", 2);
        intermediate = true;
      }
      sign(name, via ? "intermediate" : "root", "server.ext", options.days ?? 1);
      const own = readFileSync(join(dir, `${name}.pem`), "utf8");
      const chain = via ? own + readFileSync(join(dir, "intermediate.pem"), "utf8") : own;
      const certPath = join(dir, `${name}.chain.pem`);
      writeFileSync(certPath, chain);
      const certificate = new X509Certificate(own);
      return {
        certPath,
        keyPath: join(dir, `${name}.key`),
        fingerprint256: certificate.fingerprint256,
        notAfter: Date.parse(certificate.validTo),
      };
    },
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
