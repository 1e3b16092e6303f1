import { describe, expect, it } from "vitest";
import { resolveTarget, resolveTargetEnv } from "../../src/client/target.js";
import { ConfigurationError } from "../../src/client/errors.js";
import { readFileFrom } from "../support/files.js";

const noFiles = readFileFrom();

describe("resolveTargetEnv", () => {
  it.each([
    [{}, {}, "production"],
    [{}, { PETSTORE_ENV: "staging" }, "staging"],
    [{ env: "local" }, { PETSTORE_ENV: "staging" }, "local"],
    [{ staging: true }, {}, "staging"],
    [{ staging: true, env: "staging" }, {}, "staging"],
    [{}, { PETSTORE_ENV: " " }, "production"],
  ])("picks %j with %j as %s", (options, env, expected) => {
    expect(resolveTargetEnv(options, env)).toBe(expected);
  });
});

describe("resolveTarget", () => {
  it("says where everything came from (for hints), never needing the key in a flag", async () => {
    const target = await resolveTarget(
      { env: "staging" },
      { PETSTORE_STAGING_URL: "https://staging.example/v1/", PETSTORE_STAGING_API_KEY: " sk " },
      noFiles,
    );
    expect(target).toEqual({
      env: "staging",
      baseUrl: "https://staging.example/v1",
      baseUrlSource: "PETSTORE_STAGING_URL",
      apiKey: "sk",
      apiKeySource: "PETSTORE_STAGING_API_KEY",
    });
  });

  it("uses petstore serve's default URL for --env local unless --base-url is given", async () => {
    const env = { PETSTORE_API_KEY: "k" };
    // docs/staff.md: `--env local` is http://127.0.0.1:4010/v1.
    expect((await resolveTarget({ env: "local" }, env, noFiles)).baseUrl).toBe(
      "http://127.0.0.1:4010/v1",
    );
    const flagged = await resolveTarget(
      { env: "local", baseUrl: "http://127.0.0.1:5000/v1" },
      env,
      noFiles,
    );
    expect(flagged.baseUrl).toBe("http://127.0.0.1:5000/v1");
  });

  it("names where local came from, as it was given: the flag or the variable", async () => {
    const env = { PETSTORE_API_KEY: "k" };
    expect((await resolveTarget({ env: "local" }, env, noFiles)).baseUrlSource).toBe("--env local");
    const fromVariable = await resolveTarget({}, { ...env, PETSTORE_ENV: "local" }, noFiles);
    expect(fromVariable.baseUrlSource).toBe("PETSTORE_ENV=local");
  });

  it("prefers the key variable over the key file", async () => {
    const target = await resolveTarget(
      {},
      { PETSTORE_BASE_URL: "http://x/v1", PETSTORE_API_KEY: "var", PETSTORE_API_KEY_FILE: "/f" },
      () => Promise.resolve("file"),
    );
    expect(target.apiKey).toBe("var");
  });

  it.each([
    [{ PETSTORE_BASE_URL: "ftp://x/v1", PETSTORE_API_KEY: "k" }, "only http and https"],
    [{ PETSTORE_BASE_URL: "http://x/v1?a=1", PETSTORE_API_KEY: "k" }, "query or fragment"],
    [{ PETSTORE_BASE_URL: "http://x/v1", PETSTORE_API_KEY: "a\nb" }, "control characters"],
  ])("rejects %j", async (env, message) => {
    const promise = resolveTarget({}, env, noFiles);
    await expect(promise).rejects.toBeInstanceOf(ConfigurationError);
    await expect(promise).rejects.toThrow(message);
  });

  it("rejects an empty key file", async () => {
    const promise = resolveTarget(
      {},
      { PETSTORE_BASE_URL: "http://x/v1", PETSTORE_API_KEY_FILE: "/k" },
      () => Promise.resolve("\n"),
    );
    await expect(promise).rejects.toThrow("the API key file /k (PETSTORE_API_KEY_FILE) is empty");
  });
});
