/** Starts the bundled server: keys, store, seed, listen(), signals and graceful close. */
import { existsSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { fittedReason } from "../api/change-reason.js";
import type { Server } from "node:http";
import { Server as TlsServer, type TLSSocket } from "node:tls";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { ApiKeysError, loadApiKeys } from "../api/keys-file.js";
import { buildApp } from "./app.js";
import { DEMO_ORDERS, DEMO_PETS } from "./demo-data.js";
import { KeyRing } from "./key-ring.js";
import { keysReloader } from "./keys-reload.js";
import { logDestination, type LogDestination, type TextOut } from "./log-destination.js";
import { LOG_LEVELS, serverLogger } from "./log-format.js";
import type { ServerMetrics } from "./metrics.js";
import { listenForMetrics } from "./metrics-listener.js";
import { storeAnswers } from "./routes/health.js";
import { lockTimeoutFrom } from "./lock-timeout.js";
import { SeedError, loadSeed } from "./seed.js";
import type { SeedPet } from "./store/store.js";
import { StoreBusyError } from "./store/store-busy-error.js";
import { OperatorError } from "../api/operator-error.js";
import { chooseStore, openStore, storeLocked, storeName } from "./store-choice.js";
import { parseTrustedProxies } from "./trusted-proxies.js";
import { isLoopbackHost } from "../api/loopback.js";
import { readTlsPair, TlsPairError, type TlsFiles, type TlsPair } from "./tls-pair.js";
import { tlsReloader, warnIfExpired, type TlsReloader } from "./tls-reload.js";

/** What the server needs from its process: its environment and output streams. */
export interface ServeIo {
  env: Readonly<Record<string, string | undefined>>;
  /** The "listening on" line. */
  stdout: TextOut;
  /** The log: batched on its file descriptor when it has one (log-destination.ts). */
  stderr: TextOut;
}

/** How to run the server (the flags of `petstore serve`). */
export interface ServeOptions {
  host: string;
  port: number;
  /** The SQLite file (default ./petstore.db); not with PETSTORE_DATABASE_URL. */
  db?: string;
  seed?: string;
  demo?: boolean;
  apiKeysFile?: string;
  rateLimit: number;
  /** Serve GET /metrics on this port (off when absent). */
  metricsPort?: number;
  /** The metrics listener's address; loopback unless the operator opens it. */
  metricsHost: string;
  /** Reverse proxies whose X-Forwarded-For is believed: addresses and CIDRs, comma-separated. */
  trustProxy?: string;
  /** Serve HTTPS: the certificate (chain) file, PEM; only with tlsKey. */
  tlsCert?: string;
  /** Its private key file, PEM; only with tlsCert. */
  tlsKey?: string;
}

/** Exit status for a second signal while closing: the operator asked twice. */
const FORCED_EXIT_STATUS = 1;

/**
 * Runs the server until SIGTERM or SIGINT, then closes it gracefully. Throws OperatorError
 * when it cannot start; a database file it created for a failed start is removed again.
 * Everything it logs is one JSON object a line on stderr; stdout gets `listening on URL`.
 */
export async function runServer(options: ServeOptions, io: ServeIo): Promise<void> {
  const trustProxy =
    options.trustProxy === undefined ? undefined : parseTrustedProxies(options.trustProxy);
  const logLevel = logLevelFrom(io.env.PETSTORE_LOG_LEVEL);
  const logs = logDestination(io.stderr, io.env);
  const log = serverLogger(logs.stream, logLevel);
  // At error: a log that lost lines is not something a log level may hide.
  logs.onDropped((lines) => {
    log.error(
      { droppedLines: lines },
      `${lines} log ${lines === 1 ? "line was" : "lines were"} dropped while the log could not be written (a full disk, or a pipe whose reader stalled)`,
    );
  });
  const stopLoggingCrashes = logCrashes(log, logs);
  const stopLoggingWarnings = logWarnings(log);
  try {
    await serveUntilSignalled(options, io, {
      logs,
      log,
      ...(trustProxy ? { trustProxy } : {}),
    });
  } finally {
    stopLoggingWarnings();
    stopLoggingCrashes();
    logs.close();
  }
}

/**
 * Node's process warnings (a library's deprecation notice, such as pg's for ~/.pgpass; pg's
 * notice about sslmode) as log lines at warn, in place of Node's own printing of them (its
 * default 'warning' listener writes lines that are not JSON, so `jq` could not read the log).
 * The listeners it replaced are put back when the server stops.
 */
function logWarnings(log: Logger): () => void {
  const printers = process.listeners("warning");
  // None when the operator turned warnings off (--no-warnings, NODE_NO_WARNINGS=1): then none
  // is logged either.
  if (printers.length === 0) return () => undefined;
  process.removeAllListeners("warning");
  const onWarning = (warning: Error & { code?: string }) => {
    log.warn({ warning: warning.name, code: warning.code }, warning.message);
  };
  process.on("warning", onWarning);
  return () => {
    process.off("warning", onWarning);
    for (const printer of printers) process.on("warning", printer);
  };
}

/**
 * An error nothing caught (a bug) ends the process with 1, as Node would, but said in one
 * fatal log line (priority 2 in the journal) instead of a bare stack trace on stderr.
 */
function logCrashes(log: Logger, logs: LogDestination): () => void {
  const onCrash = (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    log.fatal({ err: error }, `uncaught error, exiting: ${message}`);
    logs.close();
    process.exit(1);
  };
  process.on("uncaughtException", onCrash);
  return () => {
    process.off("uncaughtException", onCrash);
  };
}

interface Logging {
  logs: LogDestination;
  log: Logger;
  trustProxy?: readonly string[];
}

async function serveUntilSignalled(
  options: ServeOptions,
  io: ServeIo,
  { logs, log, trustProxy }: Logging,
): Promise<void> {
  const apiKeys = await loadApiKeys(io.env.PETSTORE_API_KEYS, options.apiKeysFile).catch(
    (error: unknown) => {
      if (!(error instanceof ApiKeysError)) throw error;
      throw new OperatorError("configuration", error.message);
    },
  );
  if (apiKeys.length === 0) {
    throw new OperatorError(
      "configuration",
      "no API key configured: the server refuses to start without one",
      "pass --api-keys-file FILE (lines from petstore keys create NAME), or set PETSTORE_API_KEYS=key1,key2",
    );
  }
  // Validate the seed and the TLS pair before touching the database, so a bad file changes nothing.
  const seed = options.seed === undefined ? undefined : await readSeed(options.seed);
  const tlsFiles = tlsFilesOf(options);
  const tls = tlsFiles === undefined ? undefined : await readStartingPair(tlsFiles);

  const choice = await chooseStore(options.db, io.env);
  // A SQLite file this start creates is removed again if the start fails.
  const createdFile =
    choice.kind === "sqlite" && !isInMemory(choice.path) && !existsSync(choice.path)
      ? choice.path
      : undefined;
  const store = await openStore(choice, {
    lockTimeoutMs: lockTimeoutFrom(io.env.PETSTORE_LOCK_TIMEOUT_MS),
    onConnectionError: (message) => {
      log.warn(
        { store: storeName(choice) },
        `a PostgreSQL connection failed (${message}); reconnecting`,
      );
    },
  });
  const keys = new KeyRing(apiKeys);
  // prom-client is loaded only when metrics are on: off, it would cost every server memory.
  const metrics =
    options.metricsPort === undefined
      ? undefined
      : new (await import("./metrics.js")).ServerMetrics(
          {
            storeAnswers: async () => (await storeAnswers(store)) === true,
            keysLoaded: () => keys.size,
          },
          Date.now(),
          tls,
        );
  // Signals are caught from here on, so one that arrives while starting still closes cleanly,
  // and SIGHUP reads the keys file again instead of ending the process.
  const signalled = nextSignal();
  const reloader = keysReloader(
    keys,
    { envKeys: io.env.PETSTORE_API_KEYS, file: options.apiKeysFile },
    metrics,
  );
  let app: FastifyInstance | undefined;
  let metricsServer: Server | undefined;
  let tlsReloads: TlsReloader | undefined;
  const onHangUp = () => {
    void reloader.reload(log);
    void tlsReloads?.reload(log);
  };
  // Everything start-up opened, closed in this order once: on a failed start, or after a signal.
  // The API closes first (/readyz 503 at once, requests in flight finish); the metrics stay
  // up until it has closed; the store closes last.
  const teardown: (() => unknown)[] = [
    () => app?.close(),
    () => {
      signalled.cancel();
      process.off("SIGHUP", onHangUp);
    },
    () => closeServer(metricsServer),
    () => store.close(),
  ];
  const closeAll = async () => {
    for (const close of teardown) await close();
  };
  process.on("SIGHUP", onHangUp);
  try {
    if (seed && options.seed !== undefined) {
      // A seed's history records say where the counts came from: `seed pets.json`.
      const reason = fittedReason(`seed ${basename(options.seed)}`);
      if (!(await store.seedIfEmpty(seed, [], { at: Date.now(), reason }))) {
        log.warn(`${storeName(choice)} already holds pets; --seed ${options.seed} ignored`);
      }
    }
    if (options.demo) {
      await store.seedIfEmpty(DEMO_PETS, DEMO_ORDERS, { at: Date.now(), reason: "demo data" });
    }
    app = await buildApp({
      store,
      apiKeys: keys,
      ...(metrics ? { metrics } : {}),
      logger: log,
      ...(trustProxy ? { trustProxy } : {}),
      ...(tls ? { tls } : {}),
      rateLimitPerMinute: options.rateLimit,
    });
    if (tls) {
      const server = app.server;
      if (!(server instanceof TlsServer)) throw new Error("the API server does not speak TLS");
      tlsReloads = tlsReloader(server, tls, metrics);
      warnIfExpired(tls, Date.now(), log);
      server.on("tlsClientError", (error: NodeJS.ErrnoException, socket: TLSSocket) => {
        logFailedHandshake(log, error, socket.remoteAddress);
      });
    }
    // The metrics first: a metrics address refused is refused before the API's "Server
    // listening" line, which would otherwise be the log's last word before the error.
    if (metrics && options.metricsPort !== undefined) {
      metricsServer = await listenMetrics(metrics, options);
    }
    await listen(app, options);
    // Once it listens there: an address it could not listen on is refused above instead.
    const warning = tls === undefined ? clearTextWarning(options.host) : undefined;
    if (warning !== undefined) log.warn({ host: options.host }, warning);
  } catch (error) {
    await closeAll();
    if (createdFile !== undefined) removeDatabase(createdFile);
    throw error instanceof StoreBusyError ? storeLocked(storeName(choice), error) : error;
  }
  // What start-up logged comes before the line a supervisor or a test waits for.
  logs.flush();
  io.stdout.write(`listening on ${baseUrl(app, options.host, tls !== undefined)}\n`);
  if (metricsServer) {
    io.stdout.write(`metrics on ${metricsUrl(metricsServer, options.metricsHost)}\n`);
  }
  const signal = await signalled.promise;
  log.info({ signal }, `received ${signal}, closing`);
  logs.flush();
  await closeAll();
  log.info("closed");
}

/** PETSTORE_LOG_LEVEL (default info), one of pino's levels or silent. */
function logLevelFrom(value: string | undefined): string {
  if (value === undefined || value === "") return "info";
  if (LOG_LEVELS.includes(value)) return value;
  throw new OperatorError(
    "configuration",
    `PETSTORE_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, not ${JSON.stringify(value)}`,
  );
}

/**
 * Why an address cannot be listened on, as a configuration fault (exit 2) naming it and the
 * flag that gives it; undefined for an error that is not about the address.
 */
function listenRefusal(
  error: unknown,
  what: string,
  host: string,
  port: number,
  flags: { host: string; port: string; taken: string },
): OperatorError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  const hints: Partial<Record<string, string>> = {
    EADDRINUSE: flags.taken,
    EACCES: `a port under 1024 needs privileges this process does not have: pick another with ${flags.port}`,
    EADDRNOTAVAIL: `this machine has no address ${host}: give one of its own with ${flags.host}, or 0.0.0.0 for all`,
    ENOTFOUND: `no host is named ${host}: give an address of this machine with ${flags.host}, such as 127.0.0.1`,
    EAI_AGAIN: `the name ${host} could not be looked up now: give an address with ${flags.host}, such as 127.0.0.1`,
  };
  if (code === undefined || !(code in hints)) return undefined;
  return new OperatorError(
    "configuration",
    `cannot ${what} on ${host}:${port} (${code})`,
    hints[code],
  );
}

async function listenMetrics(metrics: ServerMetrics, options: ServeOptions): Promise<Server> {
  const { metricsHost: host, metricsPort: port = 0 } = options;
  try {
    return await listenForMetrics(metrics, host, port);
  } catch (error) {
    throw (
      listenRefusal(error, "serve metrics", host, port, {
        host: "--metrics-host",
        port: "--metrics-port",
        taken: "another process uses this port: pick another with --metrics-port",
      }) ?? error
    );
  }
}

async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeIdleConnections();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
}

function metricsUrl(server: Server, host: string): string {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}/metrics`;
}

async function readSeed(file: string): Promise<SeedPet[]> {
  try {
    return await loadSeed(file);
  } catch (error) {
    if (error instanceof SeedError) throw new OperatorError("configuration", error.message);
    throw error;
  }
}

function isInMemory(db: string): boolean {
  return db === ":memory:" || db === "";
}

/** Removes a database file and the WAL files SQLite keeps beside it. */
function removeDatabase(db: string): void {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${db}${suffix}`, { force: true });
}

async function listen(app: FastifyInstance, options: ServeOptions): Promise<void> {
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    throw (
      listenRefusal(error, "listen", options.host, options.port, {
        host: "--host",
        port: "--port",
        taken:
          options.port === options.metricsPort && options.host === options.metricsHost
            ? "the metrics listen on this port (--metrics-port): give the API another with --port, or the metrics another with --metrics-port"
            : "another process uses this port: pick another with --port",
      }) ?? error
    );
  }
}

function baseUrl(app: FastifyInstance, host: string, secure: boolean): string {
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return `${secure ? "https" : "http"}://${shownHost}:${port}/v1`;
}

/** What the log warns at start when the API listens beyond loopback without TLS; else undefined. */
export function clearTextWarning(host: string): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return `listening on ${host} without TLS: API keys cross the network in clear; pass --tls-cert and --tls-key, or listen on 127.0.0.1 behind a TLS-terminating proxy on this host`;
}

/**
 * A connection that never completed the TLS handshake (Node has closed it). Plain HTTP sent to
 * the HTTPS port is a client to fix (a till still on its http:// URL): said at info, naming the
 * client. Anything else (a reset, a scanner, a client refusing the certificate mid-handshake)
 * is debug, so that probes from the network do not fill the log.
 */
function logFailedHandshake(
  log: Logger,
  error: NodeJS.ErrnoException,
  client: string | undefined,
): void {
  const fields = { client: client ?? null, code: error.code ?? null };
  if (error.code === "ERR_SSL_HTTP_REQUEST") {
    log.info(
      fields,
      `plain HTTP sent to the HTTPS port by ${client ?? "a client"}, answered with nothing: its URL must start with https://`,
    );
  } else {
    log.debug(fields, `TLS handshake with ${client ?? "a client"} failed: ${error.message}`);
  }
}

/** --tls-cert and --tls-key: both, or neither (plain HTTP). */
function tlsFilesOf(options: ServeOptions): TlsFiles | undefined {
  const { tlsCert, tlsKey } = options;
  if (tlsCert === undefined && tlsKey === undefined) return undefined;
  if (tlsCert === undefined || tlsKey === undefined) {
    const [given, missing, what] =
      tlsCert === undefined
        ? ["--tls-key", "--tls-cert", "the certificate it is the key of"]
        : ["--tls-cert", "--tls-key", "the certificate's private key"];
    throw new OperatorError(
      "configuration",
      `${given} needs ${missing} (${what}, PEM)`,
      "pass both --tls-cert FILE and --tls-key FILE to serve HTTPS, or neither for plain HTTP",
    );
  }
  return { cert: tlsCert, key: tlsKey };
}

async function readStartingPair(files: TlsFiles): Promise<TlsPair> {
  try {
    return await readTlsPair(files);
  } catch (error) {
    if (error instanceof TlsPairError) throw new OperatorError("configuration", error.message);
    throw error;
  }
}

/**
 * Resolves with the first SIGTERM or SIGINT. A second signal while the server
 * is closing ends the process at once.
 */
function nextSignal(): { promise: Promise<NodeJS.Signals>; cancel(): void } {
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const cancel = () => {
    process.off("SIGTERM", onSignal).off("SIGINT", onSignal);
  };
  const promise = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (signal) => {
      cancel();
      process.once(signal, () => process.exit(FORCED_EXIT_STATUS));
      resolve(signal);
    };
    process.on("SIGTERM", onSignal).on("SIGINT", onSignal);
  });
  return { promise, cancel };
}
