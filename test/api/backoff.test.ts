import { describe, expect, it } from "vitest";
import { backoffPause } from "../../src/api/backoff.js";

const steps = { baseMs: 100, maxMs: 1_000 };

describe("backoffPause", () => {
  it("doubles the step from baseMs with each retry, up to maxMs", () => {
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffPause(steps, retry, () => 0.999999))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it("waits half the step plus a random part of the other half", () => {
    expect(backoffPause(steps, 1, () => 0)).toBe(50);
    expect(backoffPause(steps, 1, () => 0.5)).toBe(75);
    expect(backoffPause(steps, 3, () => 0)).toBe(200);
    expect(backoffPause(steps, 3, () => 0.25)).toBe(250);
  });

  it("stays at maxMs however many retries there were", () => {
    expect(backoffPause(steps, 10_000, () => 0)).toBe(500);
    expect(backoffPause(steps, 10_000, () => 0.999999)).toBe(1000);
  });

  it("gives whole milliseconds, rounding half up", () => {
    // A step of 25 ms: 12.5 at least.
    expect(backoffPause({ baseMs: 25, maxMs: 1_000 }, 1, () => 0)).toBe(13);
    // A step of 2 ms: from 1 to 2.
    expect(backoffPause({ baseMs: 2, maxMs: 50 }, 1, () => 0)).toBe(1);
    expect(backoffPause({ baseMs: 2, maxMs: 50 }, 1, () => 0.999999)).toBe(2);
  });

  it("asks for one random number per pause", () => {
    let calls = 0;
    backoffPause(steps, 2, () => {
      calls += 1;
      return 0.5;
    });
    expect(calls).toBe(1);
  });
});
