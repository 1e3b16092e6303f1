/**
 * The server's certificate and key (`--tls-cert`, `--tls-key`): read from their PEM files and
 * checked as a pair before anything serves them, at start and on every SIGHUP. A pair that
 * cannot be served is a TlsPairError naming the file and what is wrong with it; nothing in a
 * message comes from the key's contents.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createSecureContext } from "node:tls";
import { fileErrorReason } from "../api/file-error.js";

/** Where the pair is read from. */
export interface TlsFiles {
  /** PEM: the server's certificate first, then any intermediate certificates (served whole). */
  cert: string;
  /** PEM: the certificate's private key, unencrypted. */
  key: string;
}

/** A pair that OpenSSL accepts, with what the log and the metrics say about it. */
export interface TlsPair {
  files: TlsFiles;
  cert: Buffer;
  key: Buffer;
  /** The server certificate's subject, one line (`CN=shop.example`). */
  subject: string;
  /** The end of its validity, Unix milliseconds. */
  notAfter: number;
  /** SHA-256 of the server certificate, to tell a renewal from the same file read again. */
  fingerprint: string;
}

/** A pair that cannot be served: `file` is the one at fault. */
export class TlsPairError extends Error {
  readonly file: string;
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = "TlsPairError";
    this.file = file;
  }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** Reads both files and checks them as a pair; rejects with TlsPairError. */
export async function readTlsPair(files: TlsFiles): Promise<TlsPair> {
  // One after the other, so that with both unreadable the certificate is the one named.
  const cert = await readPem(files.cert, "certificate");
  const key = await readPem(files.key, "key");
  const chain = certificatesIn(files.cert, cert.toString("latin1"));
  const [leaf] = chain;
  if (leaf === undefined) throw new Error("unreachable: certificatesIn returns at least one");
  const privateKey = privateKeyIn(files.key, key.toString("latin1"));
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new TlsPairError(
      files.key,
      `this key does not match the certificate in ${files.cert} (the first certificate there must be the server's own, and this its key)`,
    );
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new TlsPairError(files.cert, `OpenSSL refuses this pair: ${reasonOf(error)}`);
  }
  return {
    files,
    cert,
    key,
    subject: leaf.subject.replaceAll("\n", ", "),
    notAfter: Date.parse(leaf.validTo),
    fingerprint: leaf.fingerprint256,
  };
}

async function readPem(file: string, what: "certificate" | "key"): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new TlsPairError(file, `cannot read the ${what} (${fileErrorReason(error)})`);
  }
}

/** The certificates of a PEM file, the server's first; every one must parse. */
function certificatesIn(file: string, pem: string): X509Certificate[] {
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  const certificates = blocks.filter((block) => block[1] === "CERTIFICATE");
  if (certificates.length === 0) {
    const swapped = blocks.some((block) => block[1]?.endsWith("PRIVATE KEY"));
    throw new TlsPairError(
      file,
      swapped
        ? "a private key, not a certificate: are --tls-cert and --tls-key swapped?"
        : "no PEM certificate in it (a -----BEGIN CERTIFICATE----- block)",
    );
  }
  return certificates.map((block, index) => {
    try {
      return new X509Certificate(block[0]);
    } catch (error) {
      throw new TlsPairError(
        file,
        `certificate ${index + 1} of ${certificates.length} cannot be read: ${reasonOf(error)}`,
      );
    }
  });
}

function privateKeyIn(file: string, pem: string): KeyObject {
  const block = [...pem.matchAll(PEM_BLOCK)].find((found) => found[1]?.endsWith("PRIVATE KEY"));
  if (block === undefined) {
    const swapped = pem.includes("-----BEGIN CERTIFICATE-----");
    throw new TlsPairError(
      file,
      swapped
        ? "a certificate, not a private key: are --tls-cert and --tls-key swapped?"
        : "no PEM private key in it (a -----BEGIN PRIVATE KEY----- block)",
    );
  }
  if (block[1] === "ENCRYPTED PRIVATE KEY" || /^Proc-Type: 4,ENCRYPTED/m.test(block[0])) {
    throw new TlsPairError(
      file,
      "the key is encrypted with a passphrase, which serve cannot ask for: store it unencrypted, readable by the server's user alone (openssl pkey -in KEY -out KEY.plain)",
    );
  }
  try {
    return createPrivateKey(block[0]);
  } catch (error) {
    throw new TlsPairError(file, `the private key cannot be read: ${reasonOf(error)}`);
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
