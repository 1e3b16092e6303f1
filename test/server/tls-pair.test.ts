/**
 * The TLS pair as `serve` reads it, at start and on SIGHUP: files made by openssl (a private
 * CA, an intermediate), and each way a pair can be unfit, named by file and reason.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTlsPair, TlsPairError } from "../../src/server/tls-pair.js";
import { privateCa, type IssuedCertificate, type PrivateCa } from "../support/local-tls.js";

let ca: PrivateCa;
let chained: IssuedCertificate;
let other: IssuedCertificate;

beforeAll(() => {
  ca = privateCa();
  chained = ca.issue("shop.test", { viaIntermediate: true, days: 30 });
  other = ca.issue("other.test");
});
afterAll(() => {
  ca.remove();
});

/** A file of the CA's directory holding `text`. */
function file(name: string, text: string): string {
  const path = join(ca.dir, name);
  writeFileSync(path, text);
  return path;
}

async function refusal(cert: string, key: string): Promise<{ file: string; message: string }> {
  try {
    await readTlsPair({ cert, key });
  } catch (error) {
    if (error instanceof TlsPairError) return { file: error.file, message: error.message };
    throw error;
  }
  throw new Error("the pair was accepted");
}

describe("readTlsPair", () => {
  it("reads a chain (the server's certificate first) and its key: subject, expiry, fingerprint", async () => {
    const pair = await readTlsPair({ cert: chained.certPath, key: chained.keyPath });
    expect(pair.subject).toBe("CN=shop.test");
    expect(pair.notAfter).toBe(chained.notAfter);
    expect(pair.notAfter - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect(pair.fingerprint).toBe(chained.fingerprint256);
    // The whole file is served: the intermediate goes with the certificate.
    expect(pair.cert.toString()).toBe(readFileSync(chained.certPath, "utf8"));
    expect(pair.cert.toString().match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });

  it("refuses a file it cannot read, naming it and why", async () => {
    const missing = join(ca.dir, "missing.pem");
    expect(await refusal(missing, chained.keyPath)).toEqual({
      file: missing,
      message: `${missing}: cannot read the certificate (no such file or directory)`,
    });
    // Both unreadable: the certificate, named first on the command line, is the one named.
    expect(await refusal(missing, join(ca.dir, "missing.key"))).toEqual({
      file: missing,
      message: `${missing}: cannot read the certificate (no such file or directory)`,
    });
    expect(await refusal(chained.certPath, ca.dir)).toEqual({
      file: ca.dir,
      message: `${ca.dir}: cannot read the key (it is a directory)`,
    });
  });

  it("refuses a key that is not the certificate's", async () => {
    expect(await refusal(chained.certPath, other.keyPath)).toEqual({
      file: other.keyPath,
      message: `${other.keyPath}: this key does not match the certificate in ${chained.certPath} (the first certificate there must be the server's own, and this its key)`,
    });
    // The chain in the wrong order: the intermediate first is not the key's certificate.
    const [leaf, intermediate] = readFileSync(chained.certPath, "utf8").split(
      /(?<=-----END CERTIFICATE-----\n)/,
    );
    const reversed = file("reversed.pem", `${intermediate ?? ""}${leaf ?? ""}`);
    expect((await refusal(reversed, chained.keyPath)).file).toBe(chained.keyPath);
  });

  it("says the files are swapped when they are", async () => {
    expect(await refusal(chained.keyPath, chained.certPath)).toEqual({
      file: chained.keyPath,
      message: `${chained.keyPath}: a private key, not a certificate: are --tls-cert and --tls-key swapped?`,
    });
    expect(await refusal(chained.certPath, chained.certPath)).toEqual({
      file: chained.certPath,
      message: `${chained.certPath}: a certificate, not a private key: are --tls-cert and --tls-key swapped?`,
    });
  });

  it("refuses files without PEM, a damaged certificate, and a key under a passphrase", async () => {
    const empty = file("empty.pem", "");
    expect(await refusal(empty, chained.keyPath)).toEqual({
      file: empty,
      message: `${empty}: no PEM certificate in it (a -----BEGIN CERTIFICATE----- block)`,
    });
    expect(await refusal(chained.certPath, empty)).toEqual({
      file: empty,
      message: `${empty}: no PEM private key in it (a -----BEGIN PRIVATE KEY----- block)`,
    });
    const damaged = file(
      "damaged.pem",
      "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n",
    );
    const refused = await refusal(damaged, chained.keyPath);
    expect(refused.file).toBe(damaged);
    expect(refused.message).toMatch(/^.*damaged\.pem: certificate 1 of 1 cannot be read: /);

    const encrypted = join(ca.dir, "encrypted.key");
    execFileSync("openssl", [
      "pkey",
      "-in",
      chained.keyPath,
      "-aes256",
      "-passout",
      "pass:secret",
      "-out",
      encrypted,
    ]);
    expect(await refusal(chained.certPath, encrypted)).toEqual({
      file: encrypted,
      message: `${encrypted}: the key is encrypted with a passphrase, which serve cannot ask for: store it unencrypted, readable by the server's user alone (openssl pkey -in KEY -out KEY.plain)`,
    });
  });

  it("reads an RSA pair in the traditional format (BEGIN RSA PRIVATE KEY) too", async () => {
    const key = join(ca.dir, "rsa.key");
    const cert = join(ca.dir, "rsa.pem");
    execFileSync("openssl", ["genrsa", "-traditional", "-out", key, "2048"], { stdio: "ignore" });
    execFileSync(
      "openssl",
      ["req", "-x509", "-key", key, "-subj", "/CN=rsa.test", "-days", "1", "-out", cert],
      { stdio: "ignore" },
    );
    expect(readFileSync(key, "utf8")).toContain("BEGIN RSA PRIVATE KEY");
    const pair = await readTlsPair({ cert, key });
    expect(pair.subject).toBe("CN=rsa.test");
  });
});
