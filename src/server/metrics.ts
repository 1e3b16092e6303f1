/**
 * The server's Prometheus metrics (prom-client, a registry of its own, never the global one).
 * Labels are bounded: a method Node parses, a route template (one value for unknown routes),
 * a status code, a reload result, a refused write's reason. No label carries a pet id, a key or
 * a key's name.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { VERSION } from "../api/version.js";
import { WRITE_REFUSAL_REASONS, type WriteRefusalReason } from "./write-refusals.js";

/** What the metrics read from the server when scraped. */
export interface MetricsSources {
  /** Resolves when the store answers; rejects (or is slow) when it does not. */
  storeAnswers(): Promise<boolean>;
  /** How many API keys are loaded now. */
  keysLoaded(): number;
}

type RequestLabels = "method" | "route" | "status_code";

export class ServerMetrics {
  readonly registry = new Registry();
  readonly #requestDuration: Histogram<RequestLabels>;
  readonly #changes: Counter;
  readonly #refusedWrites: Counter<"reason">;
  readonly #reloads: Counter<"result">;
  readonly #lastReloadSuccessful: Gauge;
  readonly #lastReloadSuccessTime: Gauge;
  readonly #tls: TlsMetrics | undefined;

  /**
   * `tls`: the certificate served at start (its notAfter, Unix ms), when the API speaks TLS;
   * without it there are no TLS metrics.
   */
  constructor(sources: MetricsSources, startedAt: number, tls?: { notAfter: number }) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.#requestDuration = new Histogram({
      name: "http_request_duration_seconds",
      help: "Time from a request's arrival to its answer, by method, route template and status",
      labelNames: ["method", "route", "status_code"],
      registers,
    });
    this.#changes = new Counter({
      name: "petstore_inventory_changes_total",
      help: "Inventory changes applied (a PATCH that wrote, each changed entry of a batch)",
      registers,
    });
    this.#refusedWrites = new Counter({
      name: "petstore_writes_refused_total",
      help: "Writes answered 503 and not made, by reason (storage_full, busy, unavailable)",
      labelNames: ["reason"],
      registers,
    });
    for (const reason of WRITE_REFUSAL_REASONS) this.#refusedWrites.inc({ reason }, 0);
    new Gauge({
      name: "petstore_store_up",
      help: "1 when the store answered within 1 s at this scrape, else 0",
      registers,
      async collect() {
        this.set((await sources.storeAnswers()) ? 1 : 0);
      },
    });
    new Gauge({
      name: "petstore_api_keys_loaded",
      help: "API keys the server accepts now",
      registers,
      collect() {
        this.set(sources.keysLoaded());
      },
    });
    this.#lastReloadSuccessful = new Gauge({
      name: "petstore_keys_last_reload_successful",
      help: "1 when the last reading of the keys file (start or SIGHUP) was valid and holds, 0 when it was refused",
      registers,
    });
    this.#lastReloadSuccessTime = new Gauge({
      name: "petstore_keys_last_reload_success_timestamp_seconds",
      help: "When the keys now held were read (Unix seconds)",
      registers,
    });
    this.#reloads = new Counter({
      name: "petstore_keys_reloads_total",
      help: "Readings of the keys file on SIGHUP, by result (success, failure)",
      labelNames: ["result"],
      registers,
    });
    const buildInfo = new Gauge({
      name: "petstore_build_info",
      help: "The running petstore-inventory version (always 1)",
      labelNames: ["version"],
      registers,
    });
    buildInfo.set({ version: VERSION }, 1);
    this.#lastReloadSuccessful.set(1);
    this.#lastReloadSuccessTime.set(startedAt / 1000);
    for (const result of ["success", "failure"]) this.#reloads.inc({ result }, 0);
    this.#tls = tls && tlsMetrics(registers, startedAt, tls.notAfter);
  }

  /** One answered request: `route` is its template, "(unknown)" when none matched (app.ts: UNKNOWN_ROUTE). */
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void {
    this.#requestDuration.observe({ method, route, status_code: statusCode }, seconds);
  }

  countChanges(count: number): void {
    if (count > 0) this.#changes.inc(count);
  }

  /** A write the server refused with a 503 (write-refusals.ts). */
  countRefusedWrite(reason: WriteRefusalReason): void {
    this.#refusedWrites.inc({ reason });
  }

  /** A SIGHUP's reading of the keys file: `at` (Unix ms) when it held. */
  keysReloaded(outcome: { ok: true; at: number } | { ok: false }): void {
    this.#reloads.inc({ result: outcome.ok ? "success" : "failure" });
    this.#lastReloadSuccessful.set(outcome.ok ? 1 : 0);
    if (outcome.ok) this.#lastReloadSuccessTime.set(outcome.at / 1000);
  }

  /** A SIGHUP's reading of the certificate and key: `at` (Unix ms) when the new pair holds. */
  tlsReloaded(outcome: { ok: true; at: number; notAfter: number } | { ok: false }): void {
    const tls = this.#tls;
    if (tls === undefined) return;
    tls.reloads.inc({ result: outcome.ok ? "success" : "failure" });
    tls.lastReloadSuccessful.set(outcome.ok ? 1 : 0);
    if (outcome.ok) {
      tls.lastReloadSuccessTime.set(outcome.at / 1000);
      tls.expiry.set(outcome.notAfter / 1000);
    }
  }

  /** The exposition text and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}

interface TlsMetrics {
  expiry: Gauge;
  lastReloadSuccessful: Gauge;
  lastReloadSuccessTime: Gauge;
  reloads: Counter<"result">;
}

/** The TLS pair's metrics, as the keys file's: its expiry, and its readings on SIGHUP. */
function tlsMetrics(registers: Registry[], startedAt: number, notAfter: number): TlsMetrics {
  const tls: TlsMetrics = {
    expiry: new Gauge({
      name: "petstore_tls_certificate_expiry_timestamp_seconds",
      help: "When the TLS certificate served to new connections expires (Unix seconds)",
      registers,
    }),
    lastReloadSuccessful: new Gauge({
      name: "petstore_tls_last_reload_successful",
      help: "1 when the last reading of the TLS certificate and key (start or SIGHUP) was valid and holds, 0 when it was refused",
      registers,
    }),
    lastReloadSuccessTime: new Gauge({
      name: "petstore_tls_last_reload_success_timestamp_seconds",
      help: "When the TLS certificate and key now served were read (Unix seconds)",
      registers,
    }),
    reloads: new Counter({
      name: "petstore_tls_reloads_total",
      help: "Readings of the TLS certificate and key on SIGHUP, by result (success, failure)",
      labelNames: ["result"],
      registers,
    }),
  };
  tls.expiry.set(notAfter / 1000);
  tls.lastReloadSuccessful.set(1);
  tls.lastReloadSuccessTime.set(startedAt / 1000);
  for (const result of ["success", "failure"]) tls.reloads.inc({ result }, 0);
  return tls;
}
