/** SIGHUP's reading of the TLS pair: the new pair served whole, or nothing changed. */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import type { SecureContextOptions } from "node:tls";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ServerMetrics } from "../../src/server/metrics.js";
import { readTlsPair, type TlsPair } from "../../src/server/tls-pair.js";
import { tlsReloader, type TlsReloadLog } from "../../src/server/tls-reload.js";
import { privateCa, type IssuedCertificate, type PrivateCa } from "../support/local-tls.js";

interface Logged {
  level: "info" | "warn" | "error";
  fields: Record<string, unknown>;
  message: string;
}

function collectingLog(): TlsReloadLog & { log: Logged[] } {
  const log: Logged[] = [];
  const at =
    (level: Logged["level"]) =>
    (fields: object, message: string): void => {
      log.push({ level, fields: fields as Record<string, unknown>, message });
    };
  return { log, info: at("info"), warn: at("warn"), error: at("error") };
}

/** A server that records the contexts it is given. */
function recordingServer(): {
  contexts: SecureContextOptions[];
  setSecureContext(o: SecureContextOptions): void;
} {
  const contexts: SecureContextOptions[] = [];
  return {
    contexts,
    setSecureContext(options) {
      contexts.push(options);
    },
  };
}

const metricsOf = (notAfter: number) =>
  new ServerMetrics({ storeAnswers: () => Promise.resolve(true), keysLoaded: () => 1 }, 1_000, {
    notAfter,
  });

async function metric(metrics: ServerMetrics, name: string): Promise<number | undefined> {
  const { text } = await metrics.exposition();
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

let ca: PrivateCa;
let first: IssuedCertificate;
let second: IssuedCertificate;
let stranger: IssuedCertificate;
let files: { cert: string; key: string };
let started: TlsPair;

beforeAll(() => {
  ca = privateCa();
  first = ca.issue("first");
  second = ca.issue("second", { days: 2 });
  stranger = ca.issue("stranger");
  files = { cert: join(ca.dir, "live.pem"), key: join(ca.dir, "live.key") };
});
afterAll(() => {
  ca.remove();
});
beforeEach(async () => {
  copyFileSync(first.certPath, files.cert);
  copyFileSync(first.keyPath, files.key);
  started = await readTlsPair(files);
});

describe("tlsReloader", () => {
  it("serves a renewed pair to new connections, and says so in the log and the metrics", async () => {
    const server = recordingServer();
    const metrics = metricsOf(started.notAfter);
    const reloader = tlsReloader(server, started, metrics, () => 5_000);
    copyFileSync(second.certPath, files.cert);
    copyFileSync(second.keyPath, files.key);
    const logged = collectingLog();
    const outcome = await reloader.reload(logged);
    expect(outcome).toMatchObject({ kind: "reloaded", renewed: true });
    expect(server.contexts).toHaveLength(1);
    expect(String(server.contexts[0]?.cert)).toContain("BEGIN CERTIFICATE");
    expect(
      new (await import("node:crypto")).X509Certificate(String(server.contexts[0]?.cert))
        .fingerprint256,
    ).toBe(second.fingerprint256);
    expect(logged.log).toEqual([
      {
        level: "info",
        fields: { file: files.cert, subject: "CN=second", notAfter: new Date(second.notAfter) },
        message: `TLS certificate reloaded from ${files.cert}: CN=second, valid until ${new Date(second.notAfter).toISOString()}`,
      },
    ]);
    expect(await metric(metrics, "petstore_tls_certificate_expiry_timestamp_seconds")).toBe(
      second.notAfter / 1000,
    );
    expect(await metric(metrics, "petstore_tls_last_reload_success_timestamp_seconds")).toBe(5);
    expect(await metric(metrics, 'petstore_tls_reloads_total{result="success"}')).toBe(1);
  });

  it("says when the files hold the same certificate as before", async () => {
    const server = recordingServer();
    const logged = collectingLog();
    expect(await tlsReloader(server, started, undefined).reload(logged)).toMatchObject({
      kind: "reloaded",
      renewed: false,
    });
    expect(logged.log.map((entry) => entry.message)).toEqual([
      `TLS certificate read again from ${files.cert}: unchanged, valid until ${new Date(first.notAfter).toISOString()}`,
    ]);
  });

  it("keeps the old pair when the new one is broken, naming the file; a later good one still holds", async () => {
    const server = recordingServer();
    const metrics = metricsOf(started.notAfter);
    const reloader = tlsReloader(server, started, metrics);
    copyFileSync(second.certPath, files.cert); // renewed certificate, old key: a half-done renewal
    const logged = collectingLog();
    expect(await reloader.reload(logged)).toEqual({
      kind: "refused",
      reason: `${files.key}: this key does not match the certificate in ${files.cert} (the first certificate there must be the server's own, and this its key)`,
    });
    expect(server.contexts).toEqual([]);
    expect(logged.log).toEqual([
      {
        level: "error",
        fields: {
          file: files.key,
          reason: expect.stringContaining("does not match") as unknown,
          notAfter: new Date(first.notAfter),
        },
        message: expect.stringMatching(/^TLS certificate refused, the old one stays: /) as unknown,
      },
    ]);
    expect(await metric(metrics, "petstore_tls_last_reload_successful")).toBe(0);
    expect(await metric(metrics, 'petstore_tls_reloads_total{result="failure"}')).toBe(1);
    expect(await metric(metrics, "petstore_tls_certificate_expiry_timestamp_seconds")).toBe(
      first.notAfter / 1000,
    );

    copyFileSync(second.keyPath, files.key);
    expect(await reloader.reload(collectingLog())).toMatchObject({
      kind: "reloaded",
      renewed: true,
    });
    expect(server.contexts).toHaveLength(1);
    expect(await metric(metrics, "petstore_tls_last_reload_successful")).toBe(1);
  });

  it("reads one signal's pair after another's, in order", async () => {
    const server = recordingServer();
    const reloader = tlsReloader(server, started, undefined);
    copyFileSync(stranger.keyPath, files.key);
    const logged = collectingLog();
    const outcomes = await Promise.all([reloader.reload(logged), reloader.reload(logged)]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["refused", "refused"]);
    expect(logged.log.map((entry) => entry.level)).toEqual(["error", "error"]);
  });

  it("refuses an expired certificate, keeping the one it serves (an old file copied back)", async () => {
    // Serving `second` (2 days), then `first` (the default 30) copied back once expired.
    copyFileSync(second.certPath, files.cert);
    copyFileSync(second.keyPath, files.key);
    const serving = await readTlsPair(files);
    const server = recordingServer();
    const metrics = metricsOf(serving.notAfter);
    const reloader = tlsReloader(server, serving, metrics, () => first.notAfter + 1);
    copyFileSync(first.certPath, files.cert);
    copyFileSync(first.keyPath, files.key);
    const logged = collectingLog();
    const reason = `${files.cert}: the certificate expired at ${new Date(first.notAfter).toISOString()} (${started.subject}): put a renewed one there`;
    expect(await reloader.reload(logged)).toEqual({ kind: "refused", reason });
    expect(server.contexts).toEqual([]);
    expect(logged.log).toEqual([
      {
        level: "error",
        fields: { file: files.cert, reason, notAfter: new Date(serving.notAfter) },
        message: `TLS certificate refused, the old one stays: ${reason}`,
      },
    ]);
    expect(await metric(metrics, "petstore_tls_last_reload_successful")).toBe(0);
    expect(await metric(metrics, 'petstore_tls_reloads_total{result="failure"}')).toBe(1);
    expect(await metric(metrics, "petstore_tls_certificate_expiry_timestamp_seconds")).toBe(
      serving.notAfter / 1000,
    );
  });
});

describe("ServerMetrics without TLS", () => {
  it("has no TLS metrics, and a TLS reload changes nothing", async () => {
    const metrics = new ServerMetrics(
      { storeAnswers: () => Promise.resolve(true), keysLoaded: () => 1 },
      0,
    );
    metrics.tlsReloaded({ ok: false });
    expect((await metrics.exposition()).text).not.toContain("petstore_tls_");
  });
});
