import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keysFileLine } from "../../../src/api/api-keys.js";
import { runKeysCheck } from "../../../src/commands/keys/check.js";
import { UsageError } from "../../../src/errors.js";
import { apiKeysFrom } from "../../../src/api/keys-file.js";
import { tempDir } from "../../support/temp-dir.js";
import { captureIo } from "../../support/capture-io.js";
import { runFake } from "../fake-deps.js";

// Keys as `petstore keys create` would print them; the test only needs them distinct.
const READ_KEY = "r3ad-key-for-cron-report-0000000000000000000";
const WRITE_KEY = "wr1te-key-for-till-1-000000000000000000000";
const OTHER_KEY = "wr1te-key-for-till-2-000000000000000000000";

describe("petstore keys check", () => {
  let temp: ReturnType<typeof tempDir>;
  const file = (name: string, text: string) => {
    const path = join(temp.dir, name);
    writeFileSync(path, text);
    return path;
  };

  beforeEach(() => {
    temp = tempDir("petstore-keys-check-");
  });
  afterEach(() => {
    temp.remove();
  });

  it("prints each key's name and scope, and the count per scope; no digest, no key", async () => {
    const keys = file(
      "keys",
      [
        "# petstore keys",
        keysFileLine("cron-report", "read", READ_KEY),
        "",
        `   ${keysFileLine("till-1", "write", WRITE_KEY)}   `,
        keysFileLine("till-2", "write", OTHER_KEY),
      ].join("\n"),
    );
    // No base URL and no key: the command talks to no server.
    const result = await runFake(["keys", "check", keys], { env: {} });
    expect(result).toMatchObject({
      code: 0,
      stdout: "cron-report\tread\ntill-1\twrite\ntill-2\twrite\n",
      stderr: `3 keys in ${keys}: 2 write, 1 read\n`,
    });
    expect(result.stdout + result.stderr).not.toMatch(/sha256|[0-9a-f]{64}/);
    // On a terminal, a table.
    const atTerminal = await runFake(["--no-color", "keys", "check", keys], {
      env: {},
      isTTY: true,
    });
    expect(atTerminal.stdout.split("\n")).toEqual([
      "┌─────────────┬───────┐",
      "│ name        │ scope │",
      "├─────────────┼───────┤",
      "│ cron-report │ read  │",
      "│ till-1      │ write │",
      "│ till-2      │ write │",
      "└─────────────┴───────┘",
      "",
    ]);
  });

  it("reports exactly what the server's parser reads, bare keys as key-N write keys", async () => {
    const text = `legacy-bare-key-value\n${keysFileLine("ops", "read", READ_KEY)}\r\nanother-bare-one\n`;
    const keys = file("keys", text);
    const io = captureIo();
    const checked = await runKeysCheck(keys, io.streams);
    const served = apiKeysFrom(undefined, { path: keys, text });
    expect(checked).toEqual(served.map(({ name, scope }) => ({ name, scope })));
    expect(io.out()).toBe("key-1\twrite\nops\tread\nkey-2\twrite\n");
    expect(io.out() + io.err()).not.toContain("bare");
    expect(io.err()).toBe(`3 keys in ${keys}: 2 write, 1 read\n`);
  });

  it("says one key in the singular", async () => {
    const keys = file("keys", `${keysFileLine("cron-report", "read", READ_KEY)}\n`);
    const result = await runFake(["keys", "check", keys], { env: {} });
    expect(result).toMatchObject({
      code: 0,
      stdout: "cron-report\tread\n",
      stderr: `1 key in ${keys}: 0 write, 1 read\n`,
    });
  });

  // The bad field of each line holds a marker that must not be printed: a pasted key.
  const PASTED = "PASTEDKEY-6f1c2a";
  it.each([
    [
      "a key pasted where the name goes",
      `${PASTED}! read sha256:${"a".repeat(64)}`,
      "invalid key name",
    ],
    ["an unknown scope", `ops ${PASTED} sha256:${"a".repeat(64)}`, "unknown scope"],
    ["a key pasted where the digest goes", `ops write ${PASTED}`, "bad digest"],
    [
      "a key pasted after the line",
      `ops write sha256:${"a".repeat(64)} ${PASTED}`,
      "malformed line (4 fields)",
    ],
    ["a digest alone", `sha256:${PASTED}`, "a digest without a name and scope"],
  ])("refuses %s: exit 2 naming FILE:LINE, without the field", async (_what, bad, why) => {
    const keys = file("keys", `# keys\n${keysFileLine("cron-report", "read", READ_KEY)}\n${bad}\n`);
    const result = await runFake(["keys", "check", keys], { env: {} });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(new RegExp(`^error: ${escape(`${keys}:3: ${why}`)}`));
    expect(result.stderr).toContain(
      "hint: the server would refuse this file: at start it exits 2, on a reload (SIGHUP) it keeps its old keys\n",
    );
    expect(result.stderr).not.toContain(PASTED);
  });

  it("refuses a key pasted as its own line's name: exit 2, the key nowhere in the output", async () => {
    const keys = file("keys", `${keysFileLine(READ_KEY, "read", READ_KEY)}\n`);
    const result = await runFake(["keys", "check", keys], { env: {} });
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toBe(
      `error: ${keys}:1: the name is a key (the key of ${keys}:1): a name says whose key it is and is logged with every request, so it must never be the key; give a name such as ops or till-1\n` +
        "hint: the server would refuse this file: at start it exits 2, on a reload (SIGHUP) it keeps its old keys\n",
    );
    expect(result.stderr).not.toContain(READ_KEY);
  });

  it("refuses the same key twice, with the server's message naming both lines", async () => {
    const line = keysFileLine("cron-report", "read", READ_KEY);
    const keys = file("keys", `${line}\n${line.replace(/^cron-report/, "till-2")}\n`);
    const result = await runFake(["keys", "check", keys], { env: {} });
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toContain(
      `error: ${keys}:2: duplicate key: the same key as ${keys}:1 (cron-report); give each key once\n`,
    );
  });

  it.each([
    ["empty", ""],
    ["only comments and blank lines", "# petstore keys\n\n   \n# none yet\n"],
  ])("refuses a file that is %s: exit 2, the server would refuse it", async (_what, text) => {
    const keys = file("keys", text);
    const result = await runFake(["keys", "check", keys], { env: {} });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `error: no key in ${keys}: the server would refuse it\n` +
        "hint: add the lines petstore keys create NAME prints on stderr\n",
      sleeps: [],
    });
  });

  it("refuses a missing file, a directory and (not as root) an unreadable file, naming it", async () => {
    const missing = join(temp.dir, "no-such-keys");
    const dir = join(temp.dir, "a-dir");
    mkdirSync(dir);
    const cases: [string, string][] = [
      [missing, "no such file or directory"],
      [dir, "it is a directory"],
    ];
    if (process.getuid?.() !== 0) {
      const locked = file("locked", keysFileLine("ops", "read", READ_KEY));
      chmodSync(locked, 0o000);
      cases.push([locked, "permission denied"]);
    }
    for (const [path, code] of cases) {
      const result = await runFake(["keys", "check", path], { env: {} });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(
        new RegExp(`^error: cannot read API keys file ${escape(path)}: ${code}\n`),
      );
    }
  });

  it("throws a UsageError to callers of the run function", async () => {
    const keys = file("keys", "");
    await expect(runKeysCheck(keys, captureIo().streams)).rejects.toBeInstanceOf(UsageError);
  });

  it("needs its file argument: exit 2", async () => {
    const result = await runFake(["keys", "check"], { env: {} });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("error: missing required argument 'file'");
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
