import { describe, expect, it } from "vitest";
import { MalformedResponseError, NetworkError } from "../../src/client/errors.js";
import { FailedAttempt, parseRetryAfter, retryDelay, withRetries } from "../../src/client/retry.js";

const NOW = Date.parse("2025-06-01T12:00:00Z");

function networkFailure(attempts: number) {
  return new NetworkError({
    failure: "unreachable",
    message: "cannot reach",
    method: "GET",
    url: "http://x/v1/inventory",
    attempts,
  });
}

describe("parseRetryAfter", () => {
  it.each([
    ["0", 0],
    ["7", 7000],
    [" 12 ", 12_000],
    ["Sun, 01 Jun 2025 12:00:30 GMT", 30_000],
    ["Sun, 01 Jun 2025 11:00:00 GMT", 0],
  ])("reads %j as %i ms", (header, ms) => {
    expect(parseRetryAfter(header, NOW)).toBe(ms);
  });

  it.each([[undefined], ["soon"], ["-5"], ["1.5"]])("ignores %j", (header) => {
    expect(parseRetryAfter(header, NOW)).toBeUndefined();
  });
});

describe("delays", () => {
  it("doubles the backoff step from 0.5 s to 8 s, with jitter between half and the whole step", () => {
    expect(retryDelay(1, undefined, () => 0)).toBe(250);
    expect(retryDelay(1, undefined, () => 0.999999)).toBe(500);
    expect(retryDelay(2, undefined, () => 0)).toBe(500);
    expect(retryDelay(3, undefined, () => 0.5)).toBe(1500);
    expect(retryDelay(20, undefined, () => 0)).toBe(4000);
  });

  it("waits at least as long as Retry-After asks, up to 30 s (docs/scripts.md)", () => {
    expect(retryDelay(1, 5000, () => 0)).toBe(5000);
    expect(retryDelay(1, 0, () => 0)).toBe(250);
    expect(retryDelay(1, 10 * 60_000, () => 0)).toBe(30_000);
  });
});

describe("withRetries", () => {
  const policy = (sleeps: number[], retries = 2) => ({
    retries,
    sleep: (ms: number) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0,
  });

  it("retries retryable failures and returns the first success", async () => {
    const sleeps: number[] = [];
    const result = await withRetries((attempt) => {
      if (attempt < 3) return Promise.reject(new FailedAttempt(networkFailure(attempt), true));
      return Promise.resolve(`ok on ${attempt}`);
    }, policy(sleeps));
    expect(result).toBe("ok on 3");
    expect(sleeps).toEqual([250, 500]);
  });

  it("rejects with the last failure once the retries are spent", async () => {
    const sleeps: number[] = [];
    const promise = withRetries(
      (attempt) => Promise.reject(new FailedAttempt(networkFailure(attempt), true)),
      policy(sleeps, 1),
    );
    await expect(promise).rejects.toMatchObject({ name: "NetworkError", attempts: 2 });
    expect(sleeps).toEqual([250]);
  });

  it("says on the last failure whether an attempt before it may have reached the server", async () => {
    const failure = (attempt: number, code: string) =>
      new NetworkError({
        failure: code === "ETIMEDOUT" ? "timeout" : "unreachable",
        code,
        message: code,
        method: "POST",
        url: "http://x/v1/inventory/batch",
        attempts: attempt,
      });
    const lastOf = async (codes: string[]) => {
      const promise = withRetries(
        (attempt) =>
          Promise.reject(new FailedAttempt(failure(attempt, codes[attempt - 1] ?? ""), true)),
        policy([], codes.length - 1),
      );
      return (await promise.catch((error: unknown) => error)) as NetworkError;
    };
    // A server down all along: every attempt refused, none reached it.
    expect((await lastOf(["ECONNREFUSED", "ECONNREFUSED"])).earlierAttemptMayHaveReached).toBe(
      false,
    );
    // It timed out, then went down: the first attempt may have been applied.
    expect((await lastOf(["ETIMEDOUT", "ECONNREFUSED"])).earlierAttemptMayHaveReached).toBe(true);
  });

  it("does not retry a failure marked non-retryable", async () => {
    let attempts = 0;
    const promise = withRetries(() => {
      attempts += 1;
      return Promise.reject(
        new FailedAttempt(
          new MalformedResponseError({ message: "no", method: "GET", url: "u" }),
          false,
        ),
      );
    }, policy([]));
    await expect(promise).rejects.toBeInstanceOf(MalformedResponseError);
    expect(attempts).toBe(1);
  });

  it("passes other errors through untouched, without retrying", async () => {
    let attempts = 0;
    const bug = new RangeError("bug");
    const promise = withRetries(() => {
      attempts += 1;
      return Promise.reject(bug);
    }, policy([]));
    await expect(promise).rejects.toBe(bug);
    expect(attempts).toBe(1);
  });
});
