/** buildApp(options) → a Fastify instance serving the inventory spec; it never listens. */
import { METHODS } from "node:http";
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
} from "fastify";
import type { DestinationStream } from "pino";
import { ERROR_CODES } from "../api/error-codes.js";
import type { ApiKey } from "../api/keys-file.js";
import { bearerAuth } from "./auth.js";
import { answerClientError, answerConnect, answerUnmetExpectation } from "./client-errors.js";
import { drainRequestBody } from "./drain-request-body.js";
import { errorHandler } from "./error-handler.js";
import { HttpError } from "./http-error.js";
import { startIdempotencyPurge } from "./idempotency-purge.js";
import { readJsonBodies } from "./json-body.js";
import { KeyRing } from "./key-ring.js";
import { serverLogger } from "./log-format.js";
import type { ServerMetrics } from "./metrics.js";
import { requestIdOf } from "./request-id.js";
import { serviceUnavailable } from "./service-unavailable.js";
import { WriteRefusals } from "./write-refusals.js";
import { healthRoutes } from "./routes/health.js";
import { inventoryRoutes } from "./routes/inventory.js";
import { inventoryBatchRoutes } from "./routes/inventory-batch.js";
import { inventoryChangesRoutes } from "./routes/inventory-changes.js";
import { allowAt } from "./routes/method-not-allowed.js";
import { openApiRoutes } from "./routes/openapi.js";
import { orderRoutes } from "./routes/orders.js";
import { petRoutes } from "./routes/pets.js";
import type { Store } from "./store/store.js";
import { REAL_TIMER, type Timer } from "./timer.js";

export interface AppOptions {
  store: Store;
  /**
   * Accepted API keys (names, scopes and digests); at least one. A KeyRing when they may be
   * replaced while serving (SIGHUP reads the keys file again).
   */
  apiKeys: readonly ApiKey[] | KeyRing;
  /** Where requests and changes are counted; none when metrics are off. */
  metrics?: ServerMetrics;
  /** The server's logger (log-format.ts), shared with what start.ts logs itself. */
  logger?: FastifyBaseLogger;
  /** Else a logger is made on this stream (tests); no logging when neither is given. */
  logStream?: DestinationStream;
  logLevel?: string;
  /**
   * Addresses and CIDR ranges of reverse proxies: a connection from one of them is taken to
   * be from the client its X-Forwarded-For names. None when absent: the socket's address.
   */
  trustProxy?: readonly string[];
  /**
   * Serve over TLS with this certificate (chain) and key, PEM; plain HTTP when absent. The
   * server is then Node's https.Server, whose setSecureContext swaps the pair (tls-reload.ts).
   */
  tls?: { cert: Buffer; key: Buffer };
  /** Requests per minute per client address; no limit when absent or 0. */
  rateLimitPerMinute?: number;
  /** Largest accepted request body in bytes. */
  bodyLimit?: number;
  /** Wall clock in Unix milliseconds, for idempotency records' age (tests drive it). */
  clock?: () => number;
  /** How often expired idempotency records are purged; default a minute. */
  idempotencyPurgeIntervalMs?: number;
  /**
   * The monotonic clock and pause of the change feed's long poll and the readiness probe's
   * store time-out (timer.ts): the real ones unless a test moves its own.
   */
  timer?: Timer;
}

/** The route of a request no route matched (404s), in its log line and metrics: one value for all. */
export const UNKNOWN_ROUTE = "(unknown)";

/** The largest request body: an InventoryUpdate is a few bytes. */
export const DEFAULT_BODY_LIMIT = 16 * 1024;

/**
 * Longest path parameter the router matches. Node refuses request heads over 16 KiB, so no
 * URL is longer: a long `petId` always reaches its route and is 400 `invalid_pet_id`.
 */
const MAX_PARAM_LENGTH = 16 * 1024;

/** Builds the application with its routes, authentication, error bodies and logging. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const keys = options.apiKeys instanceof KeyRing ? options.apiKeys : new KeyRing(options.apiKeys);
  const { metrics } = options;
  // Writes refused with a 503: counted, and a full disk logged once per episode.
  const refusals = new WriteRefusals(metrics);
  const handleError = errorHandler(refusals);
  const logger: FastifyBaseLogger | undefined =
    options.logger ??
    (options.logStream ? serverLogger(options.logStream, options.logLevel) : undefined);
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    trustProxy: options.trustProxy ? [...options.trustProxy] : false,
    // One log line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    // The caller's X-Request-Id when well formed, else a new UUID (request-id.ts).
    requestIdHeader: false,
    genReqId: requestIdOf,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // Time-outs: a slow or idle client cannot hold a connection forever.
    connectionTimeout: 30_000,
    requestTimeout: 30_000,
    keepAliveTimeout: 10_000,
    // Requests that arrive while closing get our 503 envelope (the onRequest hook below).
    return503OnClosing: false,
    // A missing Host is answered with the Error body by the onRequest hook, not by Node.
    // Over TLS, a client that does not complete the handshake (plain HTTP sent to the TLS
    // port among them) has its connection closed by Node, with nothing sent in clear.
    ...(options.tls
      ? { https: { cert: options.tls.cert, key: options.tls.key, requireHostHeader: false } }
      : { http: { requireHostHeader: false } }),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    clientErrorHandler: answerClientError,
    // Malformed percent-encoding in the URL and the like: the same Error body as the rest.
    frameworkErrors: (error, request, reply) => {
      void handleError(error, request, reply);
    },
    ajv: {
      // The decided behaviour: never coerce "5" to 5, never drop unknown properties.
      customOptions: {
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        allErrors: false,
      },
    },
  });

  // Only JSON is accepted; anything else is 415. JSON is read exactly (json-body.ts).
  app.removeContentTypeParser("text/plain");
  readJsonBodies(app);
  app.setErrorHandler(handleError);
  app.server.on("checkExpectation", answerUnmetExpectation);
  app.server.on(
    "connect",
    answerConnect((target) => allowAt(app, target)),
  );
  // Every method Node parses reaches the router, so a known path answers 405 with Allow for
  // any method it does not support. CONNECT never reaches it: answerConnect answers it, with
  // the Allow of the target's path that those 405 routes name.
  for (const method of METHODS) {
    if (method !== "CONNECT" && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }

  const closing = { now: false };
  app.addHook("preClose", (done) => {
    closing.now = true;
    done();
  });
  app.addHook("onRequest", (request, reply, done) => {
    // The probes answer for themselves while closing: /readyz says so, /livez stays 200.
    if (closing.now && !isProbe(request)) {
      done(serviceUnavailable("the server is shutting down; retry", { connection: "close" }));
      return;
    }
    // HTTP/1.1 requires Host (RFC 9112, 3.2); HTTP/1.0 clients may leave it out.
    if (request.raw.httpVersion === "1.1" && request.headers.host === undefined) {
      done(new HttpError(400, ERROR_CODES.badRequest, "an HTTP/1.1 request needs a Host header"));
      return;
    }
    done();
  });

  // A body rejected unread (413) is read to its end first, so the client sees the answer.
  app.addHook("onSend", drainRequestBody);
  app.addHook("onSend", (request, reply, payload, done) => {
    void reply.header("x-request-id", request.id);
    // Answers finished while closing end their connection, so the process can exit at once.
    if (closing.now) void reply.header("connection", "close");
    done(null, payload);
  });
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? UNKNOWN_ROUTE;
    metrics?.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    request.log.info(
      {
        method: request.method,
        route,
        petId: (request.params as { petId?: string } | undefined)?.petId,
        status: reply.statusCode,
        // The Error body's code of a 4xx or 5xx answer.
        code: reply.errorCode === "" ? undefined : reply.errorCode,
        client: request.ip,
        // The key's name only, never the key or its digest; absent before authentication.
        keyName: request.callerKeyName === "" ? undefined : request.callerKeyName,
        latencyMs: Math.round(reply.elapsedTime * 100) / 100,
      },
      "request",
    );
    done();
  });

  app.decorateRequest("callerKeyDigest", "");
  app.decorateRequest("callerKeyName", "");
  app.decorateReply("errorCode", "");
  const clock = options.clock ?? Date.now;
  const purge = startIdempotencyPurge(options.store, {
    now: clock,
    ...(options.idempotencyPurgeIntervalMs === undefined
      ? {}
      : { intervalMs: options.idempotencyPurgeIntervalMs }),
    onError: (error) => {
      app.log.warn({ err: error }, "purging expired idempotency records failed; will retry");
    },
  });
  app.addHook("onClose", async () => {
    await purge.stop();
  });

  const timer = options.timer ?? REAL_TIMER;
  await app.register(healthRoutes, {
    store: options.store,
    keys,
    draining: () => closing.now,
    timer,
  });
  const countChanges = (count: number) => {
    metrics?.countChanges(count);
    refusals.committed(count, app.log);
  };
  await app.register(
    async (v1) => {
      // The limiter's hooks are per route (onRequest), so authentication runs at preParsing
      // to come after it: guessing keys is limited too. Both precede reading the body.
      if (options.rateLimitPerMinute) {
        const { default: rateLimit } = await import("@fastify/rate-limit");
        await v1.register(rateLimit, {
          max: options.rateLimitPerMinute,
          timeWindow: 60_000,
          errorResponseBuilder: (_request, context) =>
            new HttpError(
              429,
              ERROR_CODES.tooManyRequests,
              `rate limit exceeded, retry in ${context.after}`,
            ),
        });
      }
      v1.addHook(
        "preParsing",
        bearerAuth((presented) => keys.check(presented)),
      );
      await v1.register(inventoryRoutes, { store: options.store, clock, countChanges });
      await v1.register(inventoryBatchRoutes, { store: options.store, clock, countChanges });
      await v1.register(inventoryChangesRoutes, { store: options.store, timer });
      await v1.register(petRoutes, { store: options.store });
      await v1.register(orderRoutes, { store: options.store });
      await v1.register(openApiRoutes);
      v1.setNotFoundHandler(noSuchRoute);
    },
    { prefix: "/v1" },
  );
  app.setNotFoundHandler(noSuchRoute);
  return app;
}

const PROBES: ReadonlySet<string> = new Set(["/livez", "/readyz", "/healthz"]);

function isProbe(request: FastifyRequest): boolean {
  return request.routeOptions.url !== undefined && PROBES.has(request.routeOptions.url);
}

/** 404 for an unknown route; the query string, which may hold anything, is not echoed. */
function noSuchRoute(request: FastifyRequest): never {
  const path = request.url.split("?", 1)[0] ?? request.url;
  throw new HttpError(404, ERROR_CODES.notFound, `no route ${request.method} ${path}`);
}
