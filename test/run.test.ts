/** Flag parsing, target and key selection, and the mapping of failures to exit codes. */
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import type { Deps } from "../src/program/deps.js";
import { run } from "../src/run.js";
import { VERSION } from "../src/program/version.js";
import { captureStream, HttpStubs, json, KEY, ORIGIN, runFake } from "./commands/fake-deps.js";
import { answerFrom, startStubServer, STUB_SERVER } from "./support/http-stubs.js";
import { connectingTo } from "./support/undici-redirect.js";

/** A second server: a URL other than PETSTORE_BASE_URL's (a flag's, staging's). */
const OTHER = await startStubServer();
afterAll(OTHER.close);

/** Where --env local points: http://127.0.0.1:4010 (reached through `connectingTo`). */
const LOCAL_ORIGIN = "http://127.0.0.1:4010";

/** Stubs answering one GET of `path` at `origin`. */
function listAt(origin: string, path = "/v1/inventory") {
  const stubs = new HttpStubs();
  stubs.on("GET", path, { origin }).reply(200, "[]", json);
  return stubs;
}

function authorizationOf(stubs: HttpStubs): string | undefined {
  return stubs.requests.at(-1)?.headers.authorization;
}

/**
 * Runs `argv` with `env`, its requests to 127.0.0.1:4010 (--env local) answered by `stubs`: a
 * demo may hold that port on this machine, so they reach this file's stub server instead,
 * through an undici dispatcher (the transport of a run with a proxy variable).
 */
async function runAtLocal(argv: string[], stubs: HttpStubs, env: Record<string, string>) {
  const dispatcher = connectingTo(STUB_SERVER.port);
  try {
    return await runFake(argv, { stubs, dispatcher, env });
  } finally {
    await dispatcher.close();
  }
}

describe("commander parsing", () => {
  it("prints the version on stdout (exit 0)", async () => {
    const result = await runFake(["--version"]);
    expect(result).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("lists the exit codes in the root help, 403 with 401, 8 for a conflict, 9 for low stock", async () => {
    const result = await runFake(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "  4        authentication or permission failed (401, 403)\n" +
        "  5        not found (404)\n" +
        "  6        request rejected as invalid (400, other 4xx)\n" +
        "  7        inventory apply, adjust --file or count finished with some rows failed or\n" +
        "           in conflict (its report says which); a dry run in which some would fail\n" +
        "  8        conflict: set --if-quantity found the entry changed (412), or adjust gave up;\n" +
        "           nothing was changed\n" +
        "  9        inventory low found pets below their threshold (the list is on stdout)\n" +
        "  130/143  interrupted (SIGINT / SIGTERM)\n",
    );
  });

  it("prints help with examples on stdout (exit 0)", async () => {
    const result = await runFake(["inventory", "list", "--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Examples:\n  petstore inventory list");
  });

  it.each([
    [["inventory", "set", "--help"], "petstore inventory set 42 7"],
    [["pets", "get", "--help"], "petstore pets get 42"],
    [["orders", "list", "--help"], "petstore orders list --json"],
    [["--help"], "Exit codes:"],
  ])("has examples in %j", async (argv, example) => {
    const result = await runFake(argv);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(example);
  });

  it.each([
    [["bogus"], "error: unknown command 'bogus'"],
    [["inventory", "lst"], "error: unknown command 'lst'\n(Did you mean list?)"],
    [["inventory", "list", "--jsno"], "error: unknown option '--jsno'\n(Did you mean --json?)"],
    [
      ["--timeout", "soon", "inventory", "list"],
      "error: option '--timeout <ms>' argument 'soon' is invalid",
    ],
    [["--timeout", "0", "inventory", "list"], "expected a whole number of milliseconds from 1"],
    [
      ["--retries", "-1", "inventory", "list"],
      "error: option '--retries <n>' argument '-1' is invalid",
    ],
    [["--retries", "11", "inventory", "list"], "expected a whole number of retries from 0 to 10"],
    [["--env", "prod", "inventory", "list"], "Allowed choices are production, staging, local"],
    [["inventory", "list", "extra"], "error: too many arguments for 'list'"],
    [["--api-key", "k", "inventory", "list"], "error: unknown option '--api-key'"],
  ])("rejects %j with exit 2", async (argv, message) => {
    const stubs = new HttpStubs();
    const result = await runFake(argv, { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe("");
    expect(stubs.calls()).toEqual([]);
  });

  it("shows the help on stderr with exit 2 when no command is given", async () => {
    const result = await runFake([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Usage: petstore [options] [command]");
    expect(result.stdout).toBe("");
  });

  it("accepts global options after the command", async () => {
    const stubs = listAt(OTHER.origin);
    const result = await runFake(["inventory", "list", "--base-url", `${OTHER.origin}/v1`], {
      stubs,
    });
    expect(result.code).toBe(0);
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
  });
});

describe("selecting the server", () => {
  it("uses PETSTORE_BASE_URL and PETSTORE_API_KEY for production", async () => {
    const stubs = listAt(ORIGIN);
    const result = await runFake(["inventory", "list"], { stubs });
    expect(result.code).toBe(0);
    expect(authorizationOf(stubs)).toBe(`Bearer ${KEY}`);
  });

  it("lets --base-url win over PETSTORE_BASE_URL and ignores a trailing slash", async () => {
    const stubs = listAt(OTHER.origin);
    const result = await runFake(["--base-url", `${OTHER.origin}/v1/`, "inventory", "list"], {
      stubs,
    });
    expect(result.code).toBe(0);
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
  });

  it("targets http://127.0.0.1:4010/v1 with --env local", async () => {
    const stubs = listAt(LOCAL_ORIGIN);
    const result = await runAtLocal(["--env", "local", "inventory", "list"], stubs, {
      PETSTORE_API_KEY: KEY,
    });
    expect(result.code).toBe(0);
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
  });

  it("takes the environment from PETSTORE_ENV", async () => {
    const stubs = listAt(LOCAL_ORIGIN);
    const result = await runAtLocal(["inventory", "list"], stubs, {
      PETSTORE_ENV: "local",
      PETSTORE_API_KEY: KEY,
    });
    expect(result.code).toBe(0);
  });

  it("lets --env win over PETSTORE_ENV", async () => {
    const stubs = listAt(ORIGIN);
    const result = await runFake(["--env", "production", "inventory", "list"], {
      stubs,
      env: { PETSTORE_ENV: "local", PETSTORE_BASE_URL: `${ORIGIN}/v1`, PETSTORE_API_KEY: KEY },
    });
    expect(result.code).toBe(0);
    expect(stubs.calls()).toEqual(["GET /v1/inventory"]);
  });

  it("uses PETSTORE_STAGING_URL and prefers PETSTORE_STAGING_API_KEY with --staging", async () => {
    const stubs = listAt(OTHER.origin);
    const result = await runFake(["--staging", "inventory", "list"], {
      stubs,
      env: {
        PETSTORE_BASE_URL: `${ORIGIN}/v1`,
        PETSTORE_STAGING_URL: `${OTHER.origin}/v1`,
        PETSTORE_API_KEY: KEY,
        PETSTORE_STAGING_API_KEY: "staging-key",
      },
    });
    expect(result.code).toBe(0);
    expect(authorizationOf(stubs)).toBe("Bearer staging-key");
  });

  it("falls back to PETSTORE_API_KEY for staging", async () => {
    const stubs = listAt(OTHER.origin);
    const result = await runFake(["--env", "staging", "inventory", "list"], {
      stubs,
      env: { PETSTORE_STAGING_URL: `${OTHER.origin}/v1`, PETSTORE_API_KEY: KEY },
    });
    expect(result.code).toBe(0);
    expect(authorizationOf(stubs)).toBe(`Bearer ${KEY}`);
  });

  it("reads the key from PETSTORE_API_KEY_FILE when the variable is unset", async () => {
    const stubs = listAt(ORIGIN);
    const result = await runFake(["inventory", "list"], {
      stubs,
      env: { PETSTORE_BASE_URL: `${ORIGIN}/v1`, PETSTORE_API_KEY_FILE: "/run/secrets/key" },
      files: { "/run/secrets/key": "file-key\n" },
    });
    expect(result.code).toBe(0);
    expect(authorizationOf(stubs)).toBe("Bearer file-key");
  });

  it.each([
    [
      "no production URL",
      [],
      { PETSTORE_API_KEY: KEY },
      "error: no production base URL: set PETSTORE_BASE_URL (or pass --base-url)\n",
    ],
    [
      "no staging URL",
      ["--staging"],
      { PETSTORE_BASE_URL: `${ORIGIN}/v1`, PETSTORE_API_KEY: KEY },
      "error: no staging base URL: set PETSTORE_STAGING_URL (or pass --base-url)\n",
    ],
    [
      "no key",
      [],
      { PETSTORE_BASE_URL: `${ORIGIN}/v1` },
      "error: no API key: set PETSTORE_API_KEY (or PETSTORE_API_KEY_FILE)\n",
    ],
    [
      "no staging key",
      ["--env", "staging"],
      { PETSTORE_STAGING_URL: `${ORIGIN}/v1` },
      "error: no API key: set PETSTORE_STAGING_API_KEY or PETSTORE_API_KEY (or PETSTORE_API_KEY_FILE)\n",
    ],
    [
      "an unreadable key file",
      [],
      { PETSTORE_BASE_URL: `${ORIGIN}/v1`, PETSTORE_API_KEY_FILE: "/nope" },
      "error: cannot read the API key file /nope (PETSTORE_API_KEY_FILE): no such file or directory\n",
    ],
    [
      "a bad PETSTORE_ENV",
      [],
      { PETSTORE_ENV: "prod", PETSTORE_API_KEY: KEY },
      'error: invalid PETSTORE_ENV "prod": expected one of production, staging, local\n',
    ],
    [
      "a bad base URL",
      ["--base-url", "petstore.example.com"],
      { PETSTORE_API_KEY: KEY },
      'error: invalid base URL "petstore.example.com" (from --base-url)\n',
    ],
    [
      "a base URL with a password, never shown",
      ["--base-url", "http://bob:hunter2@petstore.example.com/v1"],
      { PETSTORE_API_KEY: KEY },
      'error: invalid base URL "http://***@petstore.example.com/v1" (from --base-url): it holds a user name or password\nhint: take them out of the URL: petstore authenticates with the API key (PETSTORE_API_KEY or PETSTORE_API_KEY_FILE)\n',
    ],
    [
      "a base URL with a password that is not a URL, the password not shown",
      [],
      {
        PETSTORE_BASE_URL: "http://bob:hunter2@petstore.example.com:99999/v1",
        PETSTORE_API_KEY: KEY,
      },
      'error: invalid base URL "http://***@petstore.example.com:99999/v1" (from PETSTORE_BASE_URL)\n',
    ],
    [
      "a base URL that is not a URL, its password holding a slash",
      ["--base-url", "http://bob:hunt/er2@petstore.example.com:99999/v1"],
      { PETSTORE_API_KEY: KEY },
      'error: invalid base URL "http://***@petstore.example.com:99999/v1" (from --base-url)\n',
    ],
    [
      "--staging with --env local",
      ["--staging", "--env", "local"],
      { PETSTORE_API_KEY: KEY },
      "error: --staging conflicts with --env local\n",
    ],
  ])("stops with exit 2 before any request on %s", async (_case, flags, env, message) => {
    const stubs = new HttpStubs();
    const result = await runFake([...flags, "inventory", "list"], { stubs, env });
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(message)).toBe(true);
    expect(stubs.calls()).toEqual([]);
  });

  it("names the staging key variable in the 401 hint", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", "/v1/inventory")
      .reply(401, '{"code":"unauthorized","message":"invalid API key","status":401}', {
        headers: {
          "content-type": "application/json",
          "www-authenticate": 'Bearer realm="petstore"',
        },
      });
    const result = await runFake(["--staging", "inventory", "list"], {
      stubs,
      env: { PETSTORE_STAGING_URL: `${ORIGIN}/v1`, PETSTORE_STAGING_API_KEY: "sk" },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      `hint: check the API key for ${ORIGIN}/v1 (from PETSTORE_STAGING_URL): it comes from PETSTORE_STAGING_API_KEY\n`,
    );
  });
});

describe("unexpected failures", () => {
  /** Deps whose stdout throws on write: the CLI has no answer for that, so it is a bug (exit 1). */
  function brokenStdout(): { deps: Deps; stderr: () => string; stubs: HttpStubs } {
    const stderr = captureStream();
    const stubs = new HttpStubs();
    stubs.on("GET", "/v1/inventory").reply(200, '[{"petId":1,"quantity":1,"status":"sold"}]', json);
    const stdout = new Writable({
      write() {
        throw new Error("disk on fire");
      },
    });
    return {
      stderr: stderr.text,
      stubs,
      deps: {
        stdout,
        stderr: stderr.stream,
        stdoutIsTTY: false,
        env: { PETSTORE_BASE_URL: `${ORIGIN}/v1`, PETSTORE_API_KEY: KEY },
        readFile: () => Promise.reject(new Error("unused")),
        sleep: () => Promise.resolve(),
        random: () => 0,
        newIdempotencyKey: () => "00000000-0000-4000-8000-000000000000",
        now: () => 0,
      },
    };
  }

  /** run() itself (not runFake), its requests answered by `stubs`. */
  async function runOn(argv: string[], deps: Deps, stubs: HttpStubs): Promise<number> {
    answerFrom(stubs);
    try {
      return await run(argv, deps);
    } finally {
      answerFrom(undefined);
      stubs.verify();
    }
  }

  it("says a failure it did not expect is a bug (exit 1), without a stack trace", async () => {
    const { deps, stderr, stubs } = brokenStdout();
    const code = await runOn(["inventory", "list"], deps, stubs);
    expect(code).toBe(1);
    expect(stderr()).toBe(
      "error: unexpected failure: disk on fire\n" +
        "hint: this is a bug in petstore, please report it (--verbose shows the stack trace)\n",
    );
  });

  it("prints the stack trace of a bug with --verbose", async () => {
    const { deps, stderr, stubs } = brokenStdout();
    const code = await runOn(["--verbose", "inventory", "list"], deps, stubs);
    expect(code).toBe(1);
    expect(stderr()).toContain("error: unexpected failure: disk on fire\n");
    expect(stderr()).toMatch(/\n {4}at /);
  });
});
