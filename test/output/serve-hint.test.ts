import { describe, expect, it } from "vitest";
import { serveCommandFor } from "../../src/output/serve-hint.js";

describe("serveCommandFor", () => {
  it.each([
    ["http://127.0.0.1:4010/v1", 'PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo'],
    ["http://localhost:4010/v1", 'PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo'],
    ["http://localhost:4010/v1/", 'PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo'],
    [
      "http://127.0.0.1:4011/v1",
      'PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo --port 4011',
    ],
    [
      "http://localhost/v1",
      'PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo --port 80',
    ],
    [
      "http://[::1]:4010/v1",
      'PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo --host ::1',
    ],
    [
      "http://127.0.0.2:8080/v1",
      'PETSTORE_API_KEYS="$PETSTORE_API_KEY" petstore serve --demo --host 127.0.0.2 --port 8080',
    ],
  ])("starts the bundled server where %s points", (baseUrl, command) => {
    expect(serveCommandFor(baseUrl, "PETSTORE_API_KEY")).toBe(command);
  });

  it("hands the server the key the CLI sends, from its variable or read from its file, never the file as a keys file", () => {
    expect(serveCommandFor("http://127.0.0.1:4010/v1", "PETSTORE_STAGING_API_KEY")).toBe(
      'PETSTORE_API_KEYS="$PETSTORE_STAGING_API_KEY" petstore serve --demo',
    );
    expect(serveCommandFor("http://127.0.0.1:4010/v1", "PETSTORE_API_KEY_FILE")).toBe(
      'PETSTORE_API_KEYS="$(cat "$PETSTORE_API_KEY_FILE")" petstore serve --demo',
    );
  });

  it.each([
    ["another machine", "http://petstore.example/v1"],
    ["another machine, by address", "http://10.0.0.7:4010/v1"],
    ["https, which the bundled server does not speak", "https://localhost:4010/v1"],
    ["a base path other than /v1", "http://127.0.0.1:4010/api/v1"],
    ["no /v1 at all", "http://127.0.0.1:4010"],
    ["a name that only starts like localhost", "http://localhost.example:4010/v1"],
  ])("suggests nothing for %s", (_name, baseUrl) => {
    expect(serveCommandFor(baseUrl, "PETSTORE_API_KEY")).toBeUndefined();
  });
});
