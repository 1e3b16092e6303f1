import { describe, expect, it } from "vitest";
import { isLoopbackHost, isThisMachineAsDestination } from "../../src/api/loopback.js";
import { clearTextWarning } from "../../src/server/start.js";

describe("isLoopbackHost", () => {
  it.each([
    "localhost",
    "LOCALHOST",
    "127.0.0.1",
    "127.3.2.1",
    "::1",
    "[::1]",
    "::ffff:127.0.0.1",
    "[::ffff:7f00:1]",
  ])("%s is this machine", (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each([
    "0.0.0.0",
    "::",
    "[::]",
    "192.168.1.20",
    "10.0.0.7",
    "128.0.0.1",
    "::ffff:10.0.0.1",
    "till-server.shop.test",
    "localhost.example",
    "127.0.0.1.nip.io",
  ])("%s is the network (a name is never resolved)", (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe("isThisMachineAsDestination", () => {
  it("is loopback, and the unspecified address, which a connection reaches on this machine", () => {
    for (const host of ["127.0.0.1", "[::1]", "localhost", "0.0.0.0", "[::]", "::"]) {
      expect(isThisMachineAsDestination(host)).toBe(true);
    }
    for (const host of ["10.0.0.7", "[fe80::1]", "till-server.shop.test", "0.0.0.1"]) {
      expect(isThisMachineAsDestination(host)).toBe(false);
    }
  });
});

describe("serve's clear-text warning", () => {
  it("is logged for an address beyond loopback, naming it and the two ways out", () => {
    expect(clearTextWarning("0.0.0.0")).toBe(
      "listening on 0.0.0.0 without TLS: API keys cross the network in clear; pass --tls-cert and --tls-key, or listen on 127.0.0.1 behind a TLS-terminating proxy on this host",
    );
    expect(clearTextWarning("192.168.1.20")).toMatch(/^listening on 192\.168\.1\.20 without TLS/);
  });

  it("is not for loopback", () => {
    expect(clearTextWarning("127.0.0.1")).toBeUndefined();
    expect(clearTextWarning("::1")).toBeUndefined();
    expect(clearTextWarning("localhost")).toBeUndefined();
  });
});
