/**
 * SIGHUP: the certificate and key read again (a certbot deploy hook sends it after a renewal)
 * and checked as a pair before anything changes. A valid pair serves every connection opened
 * from then on, while the open ones finish on the old (Node's setSecureContext); a pair that
 * cannot be served, an expired certificate among them (an old file copied back would take every
 * till's HTTPS away), changes nothing but the reload metrics and a log line naming the file and
 * what is wrong. Readings run one at a time, in the order the signals came.
 */
import type { SecureContextOptions } from "node:tls";
import type { ReloadLog } from "./keys-reload.js";
import type { ServerMetrics } from "./metrics.js";
import { oneAtATime } from "./one-at-a-time.js";
import { readTlsPair, TlsPairError, type TlsPair } from "./tls-pair.js";

/** What serves the pair: Node's TLS server. */
export interface SecureServer {
  setSecureContext(options: SecureContextOptions): void;
}

/** Where a reload warns (an expired certificate is served, but said). */
export interface TlsReloadLog extends ReloadLog {
  warn(fields: object, message: string): void;
}

export type TlsReloadOutcome =
  { kind: "reloaded"; pair: TlsPair; renewed: boolean } | { kind: "refused"; reason: string };

export interface TlsReloader {
  /** Reads the pair again (after any reading already under way) and says what came of it. */
  reload(log: TlsReloadLog): Promise<TlsReloadOutcome>;
}

export function tlsReloader(
  server: SecureServer,
  started: TlsPair,
  metrics: ServerMetrics | undefined,
  clock: () => number = Date.now,
): TlsReloader {
  let served = started;
  const readOnce = async (log: TlsReloadLog): Promise<TlsReloadOutcome> => {
    let pair: TlsPair;
    try {
      pair = await readTlsPair(served.files);
      if (pair.notAfter <= clock()) {
        throw new TlsPairError(
          pair.files.cert,
          `the certificate expired at ${isoDate(pair.notAfter)} (${pair.subject}): put a renewed one there`,
        );
      }
    } catch (error) {
      if (!(error instanceof TlsPairError)) throw error;
      metrics?.tlsReloaded({ ok: false });
      log.error(
        { file: error.file, reason: error.message, notAfter: new Date(served.notAfter) },
        `TLS certificate refused, the old one stays: ${error.message}`,
      );
      return { kind: "refused", reason: error.message };
    }
    server.setSecureContext({ cert: pair.cert, key: pair.key });
    const renewed = pair.fingerprint !== served.fingerprint;
    served = pair;
    metrics?.tlsReloaded({ ok: true, at: clock(), notAfter: pair.notAfter });
    const fields = {
      file: pair.files.cert,
      subject: pair.subject,
      notAfter: new Date(pair.notAfter),
    };
    log.info(
      fields,
      renewed
        ? `TLS certificate reloaded from ${pair.files.cert}: ${pair.subject}, valid until ${isoDate(pair.notAfter)}`
        : `TLS certificate read again from ${pair.files.cert}: unchanged, valid until ${isoDate(pair.notAfter)}`,
    );
    return { kind: "reloaded", pair, renewed };
  };
  return { reload: oneAtATime(readOnce) };
}

/**
 * At start, an expired certificate is served (clients refuse it, saying why: there is no other
 * to serve), and the log says so; a reload refuses one, keeping the pair it serves.
 */
export function warnIfExpired(pair: TlsPair, now: number, log: Pick<TlsReloadLog, "warn">): void {
  if (pair.notAfter > now) return;
  log.warn(
    { file: pair.files.cert, notAfter: new Date(pair.notAfter) },
    `the TLS certificate in ${pair.files.cert} expired at ${isoDate(pair.notAfter)}: clients will refuse it until it is renewed`,
  );
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString();
}
