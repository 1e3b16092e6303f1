import { describe, expect, it } from "vitest";
import { lockTimeoutFrom } from "../../src/server/lock-timeout.js";
import { OperatorError } from "../../src/api/operator-error.js";

describe("PETSTORE_LOCK_TIMEOUT_MS", () => {
  it("defaults to 5000 ms when unset or empty", () => {
    expect(lockTimeoutFrom(undefined)).toBe(5000);
    expect(lockTimeoutFrom("")).toBe(5000);
  });

  it.each([
    ["1", 1],
    ["1500", 1500],
    ["30000", 30000],
  ])("accepts %s", (value, ms) => {
    expect(lockTimeoutFrom(value)).toBe(ms);
  });

  it.each(["0", "30001", "-5", "1.5", "5s", " 100", "1e3", "999999"])(
    "refuses %j as a configuration error naming the variable",
    (value) => {
      const error = (() => {
        try {
          lockTimeoutFrom(value);
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(OperatorError);
      expect(error).toMatchObject({
        failure: "configuration",
        message: `PETSTORE_LOCK_TIMEOUT_MS must be a whole number of milliseconds from 1 to 30000, not "${value}"`,
      });
    },
  );
});
