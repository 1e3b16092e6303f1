/**
 * Named, scoped keys end to end: keys made by the real `petstore keys create`, their lines in
 * a keys file checked by `petstore keys check`, a real `petstore serve` reading it, and the
 * real CLI using each key.
 */
import { createHash } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { runCli, runCliRecordingModules } from "./support/cli.js";
import { startServer, type RunningServer } from "./support/servers.js";

const sha256 = (key: string) => createHash("sha256").update(key).digest("hex");

interface MadeKey {
  key: string;
  line: string;
}

/** Runs `petstore keys create ...args` as a user would: `> name.key`, the line shown. */
async function createKey(args: readonly string[]): Promise<MadeKey> {
  const result = await runCli(["keys", "create", ...args]);
  expect(result.code).toBe(0);
  return { key: result.stdout.trimEnd(), line: result.stderr.trimEnd() };
}

describe("a server with a read key and a write key from petstore keys create", () => {
  const temp = tempDir();
  let server: RunningServer;
  let reader: MadeKey;
  let writer: MadeKey;
  const as = (made: MadeKey) => ({ PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: made.key });

  beforeAll(async () => {
    [reader, writer] = await Promise.all([
      createKey(["cron-report", "--scope", "read"]),
      createKey(["till-1"]),
    ]);
    const keysFile = join(temp.dir, "keys.txt");
    writeFileSync(keysFile, `# petstore keys\n${reader.line}\n\n${writer.line}\n`);
    server = await startServer({
      seed: [
        { petId: 1, name: "Rex", status: "available", quantity: 3 },
        { petId: 2, name: "Tom", status: "pending", quantity: 0 },
      ],
      args: ["--api-keys-file", keysFile],
      // Only the file's keys, and the most verbose log the server has.
      env: { PETSTORE_API_KEYS: "", PETSTORE_LOG_LEVEL: "trace" },
    });
  });
  afterAll(async () => {
    await server.stop();
    temp.remove();
  });

  it("made the lines the file holds: name, scope and the key's SHA-256", () => {
    expect(reader.line).toBe(`cron-report read sha256:${sha256(reader.key)}`);
    expect(writer.line).toBe(`till-1 write sha256:${sha256(writer.key)}`);
  });

  it("the read key lists, but set is exit 4 with the read-only hint and changes nothing", async () => {
    const list = await runCli(["inventory", "list"], { env: as(reader) });
    expect(list).toEqual({ code: 0, stdout: "1\t3\tavailable\n2\t0\tpending\n", stderr: "" });

    const set = await runCli(["inventory", "set", "1", "9"], { env: as(reader) });
    expect(set).toEqual({
      code: 4,
      stdout: "",
      stderr:
        "error: the API key cron-report is read-only (scope read): it cannot PATCH; nothing was changed (forbidden, HTTP 403)\n" +
        "hint: the API key (from PETSTORE_API_KEY) was accepted but is read-only (scope read): it can list and get stock, not change it; use a key of scope write\n",
    });
    const after = await runCli(["inventory", "get", "1"], { env: as(writer) });
    expect(after).toEqual({ code: 0, stdout: "1\t3\tavailable\n", stderr: "" });
  });

  it("the write key sets", async () => {
    const set = await runCli(["inventory", "set", "2", "5"], { env: as(writer) });
    expect(set).toEqual({ code: 0, stdout: "2\t5\tpending\n", stderr: "" });
    const after = await runCli(["inventory", "get", "2"], { env: as(reader) });
    expect(after).toEqual({ code: 0, stdout: "2\t5\tpending\n", stderr: "" });
  });

  it("its whole log names the keys and holds neither a key nor a digest", async () => {
    expect(await server.stop()).toBe(0);
    const log = server.stdout() + server.stderr();
    expect(log).toContain('"keyName":"cron-report"');
    expect(log).toContain('"keyName":"till-1"');
    // (other fields, such as the error's code, may sit between the two in the line.)
    expect(log).toMatch(/"status":403,[^\n}]*"keyName":"cron-report"/);
    for (const made of [reader, writer]) {
      expect(log).not.toContain(made.key);
      expect(log.toLowerCase()).not.toContain(sha256(made.key));
      expect(log).not.toContain(createHash("sha256").update(made.key).digest("base64"));
    }
  });
});

describe("a keys file the server cannot use", () => {
  it("is exit 2 naming the file and line, before listening, creating no database", async () => {
    const temp = tempDir();
    const keysFile = join(temp.dir, "keys.txt");
    const db = join(temp.dir, "petstore.db");
    const { line } = await createKey(["cron-report", "--scope", "read"]);
    writeFileSync(keysFile, `# keys\n${line}\n${line.replace(/^cron-report/, "till-2")}\n`);
    const result = await runCli(["serve", "--port", "0", "--db", db, "--api-keys-file", keysFile]);
    const refusal = `${keysFile}:3: duplicate key: the same key as ${keysFile}:2 (cron-report); give each key once`;
    expect(result).toEqual({ code: 2, stdout: "", stderr: `error: ${refusal}\n` });
    expect(existsSync(db)).toBe(false);
    // keys check refuses it with the server's very words, before any server is started.
    const checked = await runCli(["keys", "check", keysFile]);
    expect(checked.code).toBe(2);
    expect(checked.stdout).toBe("");
    expect(checked.stderr.split("\n")[0]).toBe(`error: ${refusal}`);
    temp.remove();
  });
});

describe("petstore keys check, the real binary", () => {
  const temp = tempDir();
  afterAll(() => {
    temp.remove();
  });
  const file = (name: string, text: string) => {
    const path = join(temp.dir, name);
    writeFileSync(path, text);
    return path;
  };

  it("lists the names and scopes of a file made by keys create, exit 0, no key or digest", async () => {
    const made = await Promise.all([
      createKey(["cron-report", "--scope", "read"]),
      createKey(["till-1"]),
      createKey(["till-2", "--scope", "write"]),
    ]);
    const keysFile = file("keys", `# petstore keys\n${made.map((m) => `${m.line}\n`).join("")}`);
    const result = await runCli(["keys", "check", keysFile]);
    expect(result).toEqual({
      code: 0,
      stdout: "cron-report\tread\ntill-1\twrite\ntill-2\twrite\n",
      stderr: `3 keys in ${keysFile}: 2 write, 1 read\n`,
    });
    for (const { key } of made) {
      expect(result.stdout + result.stderr).not.toContain(key);
      expect(result.stdout + result.stderr).not.toContain(sha256(key));
    }
  });

  it("a bad line: exit 2 naming FILE:LINE, the pasted key not echoed", async () => {
    const { key, line } = await createKey(["till-1"]);
    // The key itself pasted where its digest belongs: the mistake a check must catch.
    const keysFile = file("pasted", `# keys\n${line}\nops write ${key}\n`);
    const result = await runCli(["keys", "check", keysFile]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      new RegExp(`^error: ${keysFile.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3: bad digest: `),
    );
    expect(result.stderr).not.toContain(key);
  });

  it("an empty file: exit 2, the server would refuse it", async () => {
    const keysFile = file("empty", "# no keys yet\n\n");
    expect(await runCli(["keys", "check", keysFile])).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `error: no key in ${keysFile}: the server would refuse it\n` +
        "hint: add the lines petstore keys create NAME prints on stderr\n",
    });
  });

  it("a missing file: exit 2 naming it", async () => {
    const missing = join(temp.dir, "no-such-file");
    expect(await runCli(["keys", "check", missing])).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `error: cannot read API keys file ${missing}: no such file or directory\n` +
        "hint: the server would refuse this file: at start it exits 2, on a reload (SIGHUP) it keeps its old keys\n",
    });
  });

  it("loads the keys-file reader and no server code", async () => {
    const { line } = await createKey(["till-1"]);
    const result = await runCliRecordingModules(["keys", "check", file("one", `${line}\n`)]);
    expect(result.code).toBe(0);
    expect(result.sources).toContain("src/api/keys-file.ts");
    expect(result.sources.filter((source) => source.startsWith("src/server/"))).toEqual([]);
    for (const heavy of [
      "node_modules/fastify",
      "node_modules/better-sqlite3",
      "node_modules/pg",
    ]) {
      expect(result.sources).not.toContain(heavy);
    }
  });
});
