/**
 * Failures another attempt would meet again are not retried: an https URL at a plain HTTP
 * server, like an untrusted certificate. A follower of the feed does not wait them out.
 */
import { describe, expect, it } from "vitest";
import { createTransport, type Exchange } from "../../src/client/transport.js";
import { NetworkError } from "../../src/client/errors.js";
import { isPassingFailure } from "../../src/feed/walk.js";

const target = {
  env: "production" as const,
  baseUrl: "https://127.0.0.1:4010/v1",
  baseUrlSource: "PETSTORE_BASE_URL",
  apiKey: "k-9f3e71",
  apiKeySource: "PETSTORE_API_KEY",
};

/** An exchange that fails every call with `error`, counting the attempts. */
function failing(error: Error): { exchange: Exchange; attempts: () => number } {
  let attempts = 0;
  return {
    exchange: () => {
      attempts += 1;
      return Promise.reject(error);
    },
    attempts: () => attempts,
  };
}

async function listFailure(exchange: Exchange, sleeps: number[]): Promise<unknown> {
  const transport = createTransport({
    target,
    exchange,
    timeoutMs: 1000,
    retry: {
      retries: 3,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      random: () => 0.5,
    },
    now: () => 0,
    userAgent: "petstore-test",
  });
  return transport
    .send({ operation: "listInventory", method: "GET", path: "/inventory", decode: (b) => b })
    .then(
      () => undefined,
      (error: unknown) => error,
    );
}

describe("an https URL at a plain HTTP server", () => {
  it("is one attempt, not retried, and a NetworkError saying so", async () => {
    const sleeps: number[] = [];
    const { exchange, attempts } = failing(
      Object.assign(
        new Error(
          "write EPROTO 80:error:0A00010B:SSL routines:ssl3_get_record:wrong version number",
        ),
        { code: "EPROTO" },
      ),
    );
    const error = await listFailure(exchange, sleeps);
    expect(attempts()).toBe(1);
    expect(sleeps).toEqual([]);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({
      failure: "plain-http",
      code: "EPROTO",
      attempts: 1,
      message:
        "cannot reach https://127.0.0.1:4010/v1/inventory: the server there speaks plain HTTP, not HTTPS (TLS: wrong version number)",
    });
    expect(isPassingFailure(error)).toBe(false);
  });

  it("unlike a refused connection, which is retried and waited out", async () => {
    const sleeps: number[] = [];
    const { exchange, attempts } = failing(
      Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
    );
    const error = await listFailure(exchange, sleeps);
    expect(attempts()).toBe(4);
    expect(sleeps).toHaveLength(3);
    expect(isPassingFailure(error)).toBe(true);
  });
});
