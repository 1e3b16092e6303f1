/**
 * The probes, none of which needs a key: GET /livez (the process runs; no I/O), GET /readyz
 * (the store answers within 1 s, keys are loaded, the server is not shutting down; else 503
 * naming the check that failed), and GET /healthz, which load balancers used before /readyz
 * existed: the same answer.
 */
import type { FastifyPluginAsync } from "fastify";
import { errorSchema, healthSchema } from "../../api/schemas.js";
import type { KeyRing } from "../key-ring.js";
import { serviceUnavailable } from "../service-unavailable.js";
import type { Store } from "../store/store.js";
import { REAL_TIMER, type Timer } from "../timer.js";
import { rejectOtherMethods } from "./method-not-allowed.js";

/** How long the store has to answer a readiness probe. */
export const READINESS_STORE_TIMEOUT_MS = 1000;

export interface HealthOptions {
  store: Store;
  keys: KeyRing;
  /** True once the server has begun shutting down (SIGTERM). */
  draining: () => boolean;
  /** What the store's time-out is measured by; the real clock unless a test moves its own. */
  timer?: Timer;
}

/**
 * Whether the store answers within `timeoutMs`: true, or why not. A store that cannot reach
 * its database rejects; one held up by a lock is slow.
 */
export async function storeAnswers(
  store: Store,
  timeoutMs = READINESS_STORE_TIMEOUT_MS,
  timer: Timer = REAL_TIMER,
): Promise<true | "unreachable" | "slow"> {
  const answeredFirst = new AbortController();
  const late = timer.sleep(timeoutMs, answeredFirst.signal).then(
    () => "slow" as const,
    () => "slow" as const, // never the answer: aborted only once the race is decided
  );
  const answered = store.ping().then(
    () => true as const,
    () => "unreachable" as const,
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    answeredFirst.abort();
  }
}

export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (
  app,
  { store, keys, draining, timer = REAL_TIMER },
) => {
  const ok = { status: "ok" } as const;
  const schema = { response: { 200: healthSchema, 503: errorSchema } };

  app.get("/livez", { schema }, () => Promise.resolve(ok));

  const ready = async () => {
    if (draining()) throw notReady("draining", "the server is shutting down");
    if (keys.size === 0) throw notReady("keys", "no API key is loaded");
    const answer = await storeAnswers(store, READINESS_STORE_TIMEOUT_MS, timer);
    if (answer === "unreachable") throw notReady("store", "the database is unreachable");
    if (answer === "slow") {
      throw notReady("store", `the store did not answer within ${READINESS_STORE_TIMEOUT_MS} ms`);
    }
    return ok;
  };
  app.get("/readyz", { schema }, ready);
  app.get("/healthz", { schema }, ready);
  for (const path of ["/livez", "/readyz", "/healthz"]) rejectOtherMethods(app, path, ["GET"]);
};

/** 503 in the Error envelope, naming the failed check: `not ready (store): …`. */
function notReady(check: "draining" | "keys" | "store", why: string) {
  return serviceUnavailable(`not ready (${check}): ${why}`);
}
