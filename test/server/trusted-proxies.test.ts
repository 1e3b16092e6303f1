/** `--trust-proxy`'s value: addresses and CIDR ranges, a bad part named (exit 2 at start). */
import { describe, expect, it } from "vitest";
import { OperatorError } from "../../src/api/operator-error.js";
import { parseTrustedProxies } from "../../src/server/trusted-proxies.js";

describe("parseTrustedProxies", () => {
  it("takes IPv4 and IPv6 addresses and ranges, separated by commas", () => {
    expect(parseTrustedProxies("127.0.0.1")).toEqual(["127.0.0.1"]);
    expect(parseTrustedProxies("127.0.0.1, ::1,10.0.0.0/8,fd00::/8,0.0.0.0/0")).toEqual([
      "127.0.0.1",
      "::1",
      "10.0.0.0/8",
      "fd00::/8",
      "0.0.0.0/0",
    ]);
  });

  it.each([
    ["", '""'],
    ["127.0.0.1,", '""'],
    ["proxy.internal", '"proxy.internal"'],
    ["10.0.0.256", '"10.0.0.256"'],
    ["10.0.0.0/33", '"10.0.0.0/33"'],
    ["fd00::/129", '"fd00::/129"'],
    ["10.0.0.0/8/8", '"10.0.0.0/8/8"'],
    ["10.0.0.0/", '"10.0.0.0/"'],
    ["10.0.0.0/x", '"10.0.0.0/x"'],
    ["127.1", '"127.1"'],
  ])("refuses %j, naming %s", (value, named) => {
    let caught: unknown;
    try {
      parseTrustedProxies(value);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OperatorError);
    expect((caught as OperatorError).failure).toBe("configuration");
    expect((caught as OperatorError).message).toBe(
      `--trust-proxy: ${named} is not an IP address or a CIDR range`,
    );
  });
});
