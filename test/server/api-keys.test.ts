import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ApiKeysError,
  apiKeyFromSecret,
  apiKeysFrom,
  loadApiKeys,
  type ApiKey,
} from "../../src/api/keys-file.js";
import { createKeyChecker } from "../../src/server/key-ring.js";
import { tempDir } from "./fixture.js";

const sha256 = (key: string) => createHash("sha256").update(key).digest("hex");
const ALICE = sha256("alice-secret");
const CRON = sha256("cron-secret");

/** What the server keeps of each key: no key, only its name, scope and digest. */
const kept = (keys: readonly ApiKey[]) =>
  keys.map(({ name, scope, digestHex }) => ({ name, scope, digestHex }));

/** The error message apiKeysFrom throws for a keys file `keys.txt` holding `text`. */
function failure(text: string, envValue?: string): string {
  try {
    apiKeysFrom(envValue, { path: "keys.txt", text });
  } catch (error) {
    expect(error).toBeInstanceOf(ApiKeysError);
    return (error as Error).message;
  }
  throw new Error("the keys file was accepted");
}

describe("apiKeysFrom", () => {
  it("reads named lines, bare keys, comments and blank lines; env entries and bare keys are write keys key-N", () => {
    const text = [
      "# staff keys",
      `alice write sha256:${ALICE}`,
      "",
      `  cron.report_1   read\tsha256:${CRON.toUpperCase()}  `,
      "legacy-bare-key\r",
      "   # indented comment",
    ].join("\n");
    const keys = apiKeysFrom(" env-one, ,env-two,", { path: "keys.txt", text });
    expect(kept(keys)).toEqual([
      { name: "key-1", scope: "write", digestHex: sha256("env-one") },
      { name: "key-2", scope: "write", digestHex: sha256("env-two") },
      { name: "alice", scope: "write", digestHex: ALICE },
      { name: "cron.report_1", scope: "read", digestHex: CRON },
      { name: "key-3", scope: "write", digestHex: sha256("legacy-bare-key") },
    ]);
    // Nothing of a key itself is kept: only its digest, as hex and as bytes.
    expect(JSON.stringify(keys)).not.toMatch(/env-one|env-two|legacy-bare-key/);
  });

  it("returns no key when nothing is configured", () => {
    expect(apiKeysFrom(undefined)).toEqual([]);
    expect(apiKeysFrom(" , ")).toEqual([]);
    expect(apiKeysFrom(undefined, { path: "keys.txt", text: "# nothing yet\n\n" })).toEqual([]);
  });

  it.each([
    ["two fields", `alice write`, "keys.txt:1: malformed line (2 fields)"],
    ["four fields", `alice write sha256:${ALICE} laptop`, "keys.txt:1: malformed line (4 fields)"],
    ["a digest alone", `sha256:${ALICE}`, "keys.txt:1: a digest without a name and scope"],
    ["a name with a bad character", `al/ice write sha256:${ALICE}`, "keys.txt:1: invalid key name"],
    ["a name starting with a dot", `.alice write sha256:${ALICE}`, "keys.txt:1: invalid key name"],
    [
      "a name of 65 characters",
      `${"a".repeat(65)} read sha256:${ALICE}`,
      "keys.txt:1: invalid key name",
    ],
    ["an unknown scope", `alice admin sha256:${ALICE}`, "keys.txt:1: unknown scope"],
    ["a scope in capitals", `alice READ sha256:${ALICE}`, "keys.txt:1: unknown scope"],
    ["a digest without its prefix", `alice read ${ALICE}`, "keys.txt:1: bad digest"],
    ["another hash's prefix", `alice read sha1:${ALICE}`, "keys.txt:1: bad digest"],
    ["a short digest", `alice read sha256:${ALICE.slice(1)}`, "keys.txt:1: bad digest"],
    [
      "a digest with a non-hex digit",
      `alice read sha256:${ALICE.slice(1)}g`,
      "keys.txt:1: bad digest",
    ],
  ])("rejects %s, naming the file and line", (_kind, line, message) => {
    expect(failure(line)).toContain(message);
  });

  it("names the line of a bad line among good ones", () => {
    const text = `# keys\nalice write sha256:${ALICE}\n\ncron sometimes sha256:${CRON}\n`;
    expect(failure(text)).toBe("keys.txt:4: unknown scope: a scope is read or write");
  });

  it("rejects a duplicate name, naming both places", () => {
    const text = `alice write sha256:${ALICE}\nalice read sha256:${CRON}\n`;
    expect(failure(text)).toBe("keys.txt:2: duplicate key name alice, already given at keys.txt:1");
  });

  it.each([
    ["its own line's", `alice-secret write sha256:${ALICE}\n`, undefined, "keys.txt:1"],
    [
      "another line's",
      `alice write sha256:${ALICE}\nalice-secret read sha256:${CRON}\n`,
      undefined,
      "keys.txt:1",
    ],
    ["a bare line's", `alice-secret\nalice-secret read sha256:${CRON}\n`, undefined, "keys.txt:1"],
    [
      "a PETSTORE_API_KEYS entry's",
      `alice-secret read sha256:${CRON}\n`,
      "alice-secret",
      "PETSTORE_API_KEYS entry 1",
    ],
  ])("refuses a name that is %s key, never quoting it", (_what, text, envValue, where) => {
    const message = failure(text, envValue);
    expect(message).toMatch(
      new RegExp(
        `^keys\\.txt:\\d: the name is a key \\(the key of ${where.replace(".", "\\.")}\\): `,
      ),
    );
    expect(message).not.toContain("alice-secret");
  });

  it("rejects a named line taking a bare key's key-N name", () => {
    expect(failure(`bare-key\nkey-1 read sha256:${CRON}\n`)).toMatch(
      /^keys\.txt:2: duplicate key name key-1, already given at keys\.txt:1 \(bare keys .* are named key-1, key-2/,
    );
  });

  it("rejects a bare key whose key-N name a named line took", () => {
    expect(failure(`key-1 read sha256:${CRON}\nbare-key\n`)).toMatch(
      /^keys\.txt:2: duplicate key name key-1, already given at keys\.txt:1 \(bare keys .* are named key-1, key-2/,
    );
  });

  it.each([
    [
      "two named lines",
      `alice write sha256:${ALICE}\nbob read sha256:${ALICE.toUpperCase()}\n`,
      undefined,
      "keys.txt:2: duplicate key: the same key as keys.txt:1 (alice)",
    ],
    [
      "a bare key and its digest",
      `alice write sha256:${ALICE}\nalice-secret\n`,
      undefined,
      "keys.txt:2: duplicate key: the same key as keys.txt:1 (alice)",
    ],
    [
      "two bare keys",
      "same\n\nsame\n",
      undefined,
      "keys.txt:3: duplicate key: the same key as keys.txt:1 (key-1)",
    ],
    [
      "an env entry and a line",
      `bob read sha256:${sha256("shared")}\n`,
      "shared",
      "keys.txt:1: duplicate key: the same key as PETSTORE_API_KEYS entry 1 (key-1)",
    ],
  ])("rejects a duplicate key: %s", (_kind, text, envValue, message) => {
    expect(failure(text, envValue)).toBe(`${message}; give each key once`);
  });

  it("rejects a duplicate entry of PETSTORE_API_KEYS", () => {
    expect(() => apiKeysFrom("one,two,one")).toThrow(
      "PETSTORE_API_KEYS entry 3: duplicate key: the same key as PETSTORE_API_KEYS entry 1 (key-1); give each key once",
    );
  });

  it("never puts a key or a field of a bad line in its message", () => {
    const secret = "s3cret-pasted-instead-of-digest";
    const messages = [
      failure(`alice write ${secret}`),
      failure(`alice ${secret} sha256:${ALICE}`),
      failure(`${secret}! write sha256:${ALICE}`),
      failure(`${secret} and more`),
      failure(`${secret}\n${secret}`),
      failure(`bob read sha256:${sha256(secret)}`, secret),
    ];
    for (const message of messages) {
      expect(message).not.toContain(secret);
      expect(message).not.toContain(sha256(secret));
    }
  });
});

describe("loadApiKeys", () => {
  it("reads the keys file", async () => {
    const temp = tempDir();
    const file = join(temp.dir, "keys");
    writeFileSync(file, `# staff keys\nalice read sha256:${ALICE}\r\n\n  file-key \n`);
    expect(kept(await loadApiKeys(" env-key", file))).toEqual([
      { name: "key-1", scope: "write", digestHex: sha256("env-key") },
      { name: "alice", scope: "read", digestHex: ALICE },
      { name: "key-2", scope: "write", digestHex: sha256("file-key") },
    ]);
    temp.remove();
  });

  it("names the file in the message of a bad line", async () => {
    const temp = tempDir();
    const file = join(temp.dir, "keys");
    writeFileSync(file, `alice read sha256:${ALICE}\nalice read\n`);
    await expect(loadApiKeys(undefined, file)).rejects.toThrow(`${file}:2: malformed line`);
    temp.remove();
  });

  it("reports an unreadable file without its contents", async () => {
    await expect(loadApiKeys(undefined, "/nonexistent/keys")).rejects.toThrow(
      "cannot read API keys file /nonexistent/keys: no such file or directory",
    );
  });
});

describe("createKeyChecker", () => {
  it("finds exactly the configured keys, with their names and scopes", () => {
    const alpha = apiKeyFromSecret("alpha", "write", "alpha");
    const beta = apiKeyFromSecret("beta", "read", "beta");
    const acceptedKey = createKeyChecker([alpha, beta]);
    expect(acceptedKey("alpha")).toBe(alpha);
    expect(acceptedKey("beta")).toBe(beta);
    expect(acceptedKey("alph")).toBeUndefined();
    expect(acceptedKey("alphaa")).toBeUndefined();
    expect(acceptedKey("")).toBeUndefined();
  });
});
