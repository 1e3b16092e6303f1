import { describe, expect, it } from "vitest";
import { proxyFor, proxySettings } from "../../src/client/proxy.js";

const PROXY = "http://proxy.corp:3128";

describe("proxyFor", () => {
  it("uses HTTPS_PROXY for https and HTTP_PROXY for http", () => {
    const settings = proxySettings({ HTTPS_PROXY: PROXY, HTTP_PROXY: "http://plain:8080" });
    expect(proxyFor(settings, "https://api.example/v1")).toEqual({
      address: "proxy.corp:3128",
      source: "HTTPS_PROXY",
    });
    expect(proxyFor(settings, "http://api.example/v1")).toEqual({
      address: "plain:8080",
      source: "HTTP_PROXY",
    });
  });

  it("falls back to HTTP_PROXY for https, never to HTTPS_PROXY for http", () => {
    expect(proxyFor(proxySettings({ HTTP_PROXY: PROXY }), "https://a/v1")?.source).toBe(
      "HTTP_PROXY",
    );
    expect(proxyFor(proxySettings({ HTTPS_PROXY: PROXY }), "http://a/v1")).toBeUndefined();
  });

  it("prefers the lower-case variable and never shows credentials", () => {
    const settings = proxySettings({
      https_proxy: "http://user:pw@low:1",
      HTTPS_PROXY: "http://up:2",
    });
    expect(proxyFor(settings, "https://a/v1")).toEqual({ address: "low:1", source: "https_proxy" });
  });

  it.each([
    ["api.example", "https://api.example/v1", true],
    ["example", "https://api.example/v1", true],
    [".example", "https://api.example/v1", true],
    ["*.example", "https://api.example/v1", true],
    ["api.example:8443", "https://api.example:8443/v1", true],
    ["api.example:8443", "https://api.example/v1", false],
    ["other.example, 127.0.0.1", "http://127.0.0.1:4010/v1", true],
    ["*", "https://anything/v1", true],
    ["ample", "https://api.example/v1", false],
  ])("NO_PROXY=%s exempts %s: %s", (noProxy, url, exempt) => {
    const settings = proxySettings({ HTTPS_PROXY: PROXY, HTTP_PROXY: PROXY, NO_PROXY: noProxy });
    expect(proxyFor(settings, url) === undefined).toBe(exempt);
  });
});
