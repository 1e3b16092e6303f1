import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KEY_BYTES, runKeysCreate } from "../../../src/commands/keys/create.js";
import { UsageError } from "../../../src/errors.js";
import { apiKeysFrom } from "../../../src/api/keys-file.js";
import { captureIo } from "../../support/capture-io.js";
import { runFake } from "../fake-deps.js";

const sha256 = (key: string) => createHash("sha256").update(key).digest("hex");

/** Reads a printed keys-file line back with the server's own parser. */
function parsedBack(line: string) {
  return apiKeysFrom(undefined, { path: "keys.txt", text: line }).map(
    ({ name, scope, digestHex }) => ({ name, scope, digestHex }),
  );
}

describe("petstore keys create", () => {
  it("prints a new key on stdout and its keys-file line on stderr, which the server reads back", async () => {
    // No base URL and no key: the command talks to no server.
    const result = await runFake(["keys", "create", "cron-report", "--scope", "read"], { env: {} });
    expect(result.code).toBe(0);
    const key = result.stdout.slice(0, -1);
    expect(result.stdout).toBe(`${key}\n`);
    // 32 random bytes in base64url: 43 characters a shell and an HTTP header take as they are.
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key, "base64url")).toHaveLength(KEY_BYTES);
    expect(result.stderr).toBe(`cron-report read sha256:${sha256(key)}\n`);
    expect(parsedBack(result.stderr)).toEqual([
      { name: "cron-report", scope: "read", digestHex: sha256(key) },
    ]);
  });

  it("makes a write key by default, and a different key every time", async () => {
    const first = await runFake(["keys", "create", "till-1"], { env: {} });
    const second = await runFake(["keys", "create", "till-1"], { env: {} });
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(first.stdout).not.toBe(second.stdout);
    for (const { stdout, stderr } of [first, second]) {
      expect(parsedBack(stderr)).toEqual([
        { name: "till-1", scope: "write", digestHex: sha256(stdout.trimEnd()) },
      ]);
    }
  });

  it("encodes exactly the bytes crypto.randomBytes gave, asking for 32", () => {
    const io = captureIo();
    const sizes: number[] = [];
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
    runKeysCreate("ops", { scope: "write" }, io.streams, (size) => {
      sizes.push(size);
      return bytes;
    });
    expect(sizes).toEqual([32]);
    expect(io.out()).toBe("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\n");
    expect(io.err()).toBe(
      `ops write sha256:${sha256("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")}\n`,
    );
  });

  it.each([
    ["a space", "cron report"],
    ["a slash", "ops/cron"],
    ["a leading dot", ".hidden"],
    ["a leading underscore", "_cron"],
    ["a non-ASCII letter", "café"],
    ["a comment sign", "#cron"],
    ["65 characters", "a".repeat(65)],
    ["nothing", ""],
  ])("refuses a name with %s: exit 2, no key printed", async (_what, name) => {
    const result = await runFake(["keys", "create", name], { env: {} });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      `error: invalid key name ${JSON.stringify(name)}: a name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit\n` +
        "hint: name the key after who or what uses it: petstore keys create cron-report --scope read\n",
    );
  });

  it("refuses an unknown scope and a missing name: exit 2, no key printed", async () => {
    const scope = await runFake(["keys", "create", "cron", "--scope", "admin"], { env: {} });
    expect(scope.code).toBe(2);
    expect(scope.stdout).toBe("");
    expect(scope.stderr).toContain(
      "error: option '--scope <scope>' argument 'admin' is invalid. Allowed choices are read, write.",
    );
    const noName = await runFake(["keys", "create"], { env: {} });
    expect(noName.code).toBe(2);
    expect(noName.stdout).toBe("");
    expect(noName.stderr).toContain("error: missing required argument 'name'");
  });

  it("accepts exactly the names the server's keys-file parser accepts", () => {
    const nameCharacters = fc.constantFrom(..."aZ09._-/ #é\t:".split(""));
    const names = fc.oneof(
      fc.string({ unit: nameCharacters, maxLength: 70 }),
      fc.string({ maxLength: 70 }),
    );
    const digest = `sha256:${"ab".repeat(32)}`;
    fc.assert(
      fc.property(names, (name) => {
        let created: boolean;
        try {
          runKeysCreate(name, { scope: "read" }, captureIo().streams, (size) => Buffer.alloc(size));
          created = true;
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          created = false;
        }
        let served: boolean;
        try {
          const keys = apiKeysFrom(undefined, { path: "k", text: `${name} read ${digest}` });
          served = keys.length === 1 && keys[0]?.name === name;
        } catch {
          served = false;
        }
        expect(served).toBe(created);
      }),
      { numRuns: 2000 },
    );
  });
});
