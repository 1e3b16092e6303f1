/** Every class of error answer, through the whole CLI: status, message, hint and exit code. */
import { describe, expect, it } from "vitest";
import { BASE_URL, HttpStubs, json, KEY, ORIGIN, runFake } from "./fake-deps.js";

function errorBody(status: number, code: string, message: string): string {
  return JSON.stringify({ code, message, status });
}

/** `inventory set 42 1` answered once with `status`. */
async function setAnswered(
  status: number,
  body: string,
  options: { headers?: Record<string, string>; argv?: string[]; env?: Record<string, string> } = {},
) {
  const stubs = new HttpStubs();
  stubs
    .on("PATCH", "/v1/inventory/42")
    .reply(status, body, { headers: { ...json.headers, ...options.headers } });
  const result = await runFake([...(options.argv ?? []), "inventory", "set", "42", "1"], {
    stubs,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  expect(stubs.calls()).toEqual(["PATCH /v1/inventory/42"]);
  expect(result.stdout).toBe("");
  expect(result.stderr).not.toContain(KEY);
  return result;
}

describe("error answers", () => {
  it.each([
    [
      400,
      "invalid_body",
      "quantity must be an integer",
      "check the petId and quantity: the server's message above says what it rejected",
      6,
    ],
    [
      403,
      "forbidden",
      "the key cannot write",
      "the API key (from PETSTORE_API_KEY) was accepted but is read-only (scope read): it can list and get stock, not change it; use a key of scope write",
      4,
    ],
    [
      404,
      "pet_not_found",
      "no pet with petId 42",
      "check the petId; petstore inventory list shows the known ones",
      5,
    ],
    [
      404,
      "not_found",
      "no route PATCH /v1/inventory/42",
      `the server has no such route: check that the base URL ${BASE_URL} (from PETSTORE_BASE_URL) is right and ends in /v1`,
      5,
    ],
    [
      405,
      "method_not_allowed",
      "PATCH is not allowed",
      `the server does not allow PATCH there: is ${BASE_URL} (from PETSTORE_BASE_URL) a petstore API whose base URL ends in /v1?`,
      6,
    ],
    [
      409,
      "conflict",
      "the entry changed",
      "the request conflicts with the entry's current state: read it again (petstore inventory list) and retry if the change is still needed",
      6,
    ],
    [
      413,
      "payload_too_large",
      "body too large",
      "the server (or a proxy in between) refused the request body as too large",
      6,
    ],
    [
      415,
      "unsupported_media_type",
      "expected application/json",
      `the server refused a JSON body: is ${BASE_URL} (from PETSTORE_BASE_URL) a petstore API?`,
      6,
    ],
    [
      422,
      "idempotency_key_reused",
      "the key was used for another request",
      "the server already saw this request's Idempotency-Key with a different change, so it refused this one: that is a bug in petstore or a key collision. Run the command again (it sends a new key); if it happens again, report it",
      6,
    ],
    [
      422,
      "unprocessable",
      "cannot do that",
      "the server understood the request but refused it: its message above says why",
      6,
    ],
    [
      412,
      "precondition_failed",
      "the entry holds 3, not 5",
      "the entry changed since it was read, and nothing was changed: read it again (petstore inventory get <petId>) and decide, or use petstore inventory adjust for a relative change",
      8,
    ],
  ])("HTTP %i %s: hint and exit code", async (status, code, message, hint, exitCode) => {
    const result = await setAnswered(status, errorBody(status, code, message));
    expect(result.code).toBe(exitCode);
    expect(result.stderr).toBe(`error: ${message} (${code}, HTTP ${status})\nhint: ${hint}\n`);
  });

  it("401 with --base-url names that URL, not an environment", async () => {
    const result = await setAnswered(401, errorBody(401, "unauthorized", "invalid API key"), {
      argv: ["--base-url", `${ORIGIN}/v1`],
      env: { PETSTORE_API_KEY: KEY },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      "error: invalid API key (unauthorized, HTTP 401)\n" +
        `hint: check the API key for ${ORIGIN}/v1 (from --base-url): it comes from PETSTORE_API_KEY\n`,
    );
  });

  it("a redirect is not followed: exit 2, naming where it points and the base URL to use", async () => {
    const result = await setAnswered(301, "", {
      headers: { location: "https://petstore.test/v1/inventory/42" },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: the server answered 301 Moved Permanently, redirecting to https://petstore.test/v1/inventory/42 (HTTP 301)\n" +
        `hint: petstore does not follow redirects, and the server points to https://petstore.test/v1/inventory/42: set the base URL ${BASE_URL} (from PETSTORE_BASE_URL) to https://petstore.test/v1\n`,
    );
  });

  it("a 404 of a listing is always the route, whatever the code", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", "/v1/inventory")
      .reply(404, errorBody(404, "pet_not_found", "nothing here"), json);
    const result = await runFake(["inventory", "list"], { stubs });
    expect(result.code).toBe(5);
    expect(result.stderr).toBe(
      "error: nothing here (pet_not_found, HTTP 404)\n" +
        `hint: the server has no such route: check that the base URL ${BASE_URL} (from PETSTORE_BASE_URL) is right and ends in /v1\n`,
    );
  });

  it("the deprecated pet lookup reads a 404 as no such pet", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", "/v1/pets/7")
      .reply(404, errorBody(404, "pet_not_found", "no pet with petId 7"), json);
    const result = await runFake(["pets", "get", "7"], { stubs });
    expect(result.code).toBe(5);
    expect(result.stderr).toBe(
      "error: no pet with petId 7 (pet_not_found, HTTP 404)\n" +
        "hint: check the petId; petstore inventory list shows the known ones\n",
    );
  });
});

describe("a 404 without an Error body: not a petstore server", () => {
  it.each([
    [["inventory", "get", "42"], "GET", "/inventory/42"],
    [["inventory", "set", "42", "1"], "PATCH", "/inventory/42"],
    [["inventory", "list"], "GET", "/inventory"],
    [["pets", "get", "42"], "GET", "/pets/42"],
  ])("%j says so, never 'no such pet', and suggests /v1 (exit 5)", async (argv, method, path) => {
    const stubs = new HttpStubs();
    stubs
      .on(method, path)
      .reply(404, "<h1>Not Found</h1>", { headers: { "content-type": "text/html" } });
    const result = await runFake(argv, {
      stubs,
      env: { PETSTORE_BASE_URL: `${ORIGIN}/`, PETSTORE_API_KEY: KEY },
    });
    expect(result).toMatchObject({
      code: 5,
      stdout: "",
      stderr:
        "error: the server answered 404 Not Found without an Error body: it does not look like a petstore server (HTTP 404)\n" +
        `hint: check the base URL ${ORIGIN} (from PETSTORE_BASE_URL): a petstore server's ends in /v1, as in ${ORIGIN}/v1\n`,
    });
  });

  it("with a base URL that ends in /v1, asks whether it is a petstore server's", async () => {
    const stubs = new HttpStubs();
    stubs.on("GET", "/v1/inventory/42").reply(404, "");
    const result = await runFake(["inventory", "get", "42"], { stubs });
    expect(result).toMatchObject({
      code: 5,
      stdout: "",
      stderr:
        "error: the server answered 404 Not Found without an Error body: it does not look like a petstore server (HTTP 404)\n" +
        `hint: check that ${BASE_URL} (from PETSTORE_BASE_URL) is a petstore server's base URL: a petstore server answers every error with a JSON Error body\n`,
    });
  });
});
