/**
 * An API client on an undici MockAgent, for the client's own tests: the target a user's
 * `--base-url` and `PETSTORE_API_KEY` would give, no real waits, and a fixed clock.
 */
import type { MockAgent } from "undici";
import { createApiClient, type ApiClient } from "../../src/client/api-client.js";
import { undiciExchange } from "../../src/client/dispatcher.js";

/** The origin the mock answers for; the client's base URL is this and `/v1`. */
export const MOCK_ORIGIN = "http://petstore.test";

/** A client on `agent`, trying again `retries` times, naming its keys by `idempotencyKey`. */
export function mockClient(
  agent: MockAgent,
  options: { retries: number; idempotencyKey: () => string },
): ApiClient {
  agent.disableNetConnect();
  return createApiClient({
    target: {
      env: "production",
      baseUrl: `${MOCK_ORIGIN}/v1`,
      baseUrlSource: "--base-url",
      apiKey: "k-1",
      apiKeySource: "PETSTORE_API_KEY",
    },
    exchange: undiciExchange(agent),
    timeoutMs: 1000,
    retry: { retries: options.retries, sleep: () => Promise.resolve(), random: () => 0.5 },
    now: () => 0,
    userAgent: "petstore-test",
    idempotencyKey: options.idempotencyKey,
  });
}
