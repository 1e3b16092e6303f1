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
import { rejectOtherMethods } from "./method-not-allowed.js";

/** How long the store has to answer a readiness probe. */
export const READINESS_STORE_TIMEOUT_MS = 1000;

export interface HealthOptions {
  store: Store;
  keys: KeyRing;
  /** True once the server has begun shutting down (SIGTERM). */
  draining: () => boolean;
}

/**
 * Whether the store answers within `timeoutMs`: true, or why not. A store that cannot reach
 * its database rejects; one held up by a lock is slow.
 */
export async function storeAnswers(
  store: Store,
  timeoutMs = READINESS_STORE_TIMEOUT_MS,
): Promise<true | "unreachable" | "slow"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"slow">((resolve) => {
    timer = setTimeout(() => {
      resolve("slow");
    }, timeoutMs);
  });
  const answered = store.ping().then(
    () => true as const,
    () => "unreachable" as const,
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

export const healthRoutes: FastifyPluginAsync<HealthOptions> = async (
  app,
  { store, keys, draining },
) => {
  const ok = { status: "ok" } as const;
  const schema = { response: { 200: healthSchema, 503: errorSchema } };

  app.get("/livez", { schema }, () => Promise.resolve(ok));

  const ready = async () => {
    if (draining()) throw notReady("draining", "the server is shutting down");
    if (keys.size === 0) throw notReady("keys", "no API key is loaded");
    const answer = await storeAnswers(store);
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
