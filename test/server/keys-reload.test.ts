/** SIGHUP's reading of the keys file: checked whole, replaced whole or not at all. */
import { writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { keysFileLine } from "../../src/api/api-keys.js";
import { loadApiKeys } from "../../src/api/keys-file.js";
import { KeyRing } from "../../src/server/key-ring.js";
import { keysReloader, type ReloadLog } from "../../src/server/keys-reload.js";
import { ServerMetrics } from "../../src/server/metrics.js";
import { tempDir } from "./fixture.js";

interface Logged {
  level: "info" | "error";
  fields: Record<string, unknown>;
  message: string;
}

function collectingLog(): ReloadLog & { log: Logged[] } {
  const log: Logged[] = [];
  return {
    log,
    info(fields: object, message: string) {
      log.push({ level: "info", fields: fields as Record<string, unknown>, message });
    },
    error(fields: object, message: string) {
      log.push({ level: "error", fields: fields as Record<string, unknown>, message });
    },
  };
}

let temp: { dir: string; remove(): void };
let file: string;
beforeEach(() => {
  temp = tempDir();
  file = join(temp.dir, "keys");
});
afterEach(() => {
  temp.remove();
});

const TILL = keysFileLine("till-1", "write", "till-1-secret-key");
const CRON = keysFileLine("cron", "read", "cron-secret-key");
const CRON_NEW = keysFileLine("cron", "read", "cron-secret-key-2");
const AUDIT = keysFileLine("audit", "read", "audit-secret-key");

async function startingWith(text: string) {
  writeFileSync(file, text);
  const ring = new KeyRing(await loadApiKeys(undefined, file));
  const metrics = new ServerMetrics(
    { storeAnswers: () => Promise.resolve(true), keysLoaded: () => ring.size },
    0,
  );
  const reloader = keysReloader(ring, { envKeys: undefined, file }, metrics, () => 42_000);
  return { ring, metrics, reloader };
}

async function reloadSamples(metrics: ServerMetrics): Promise<string[]> {
  return (await metrics.exposition()).text
    .split("\n")
    .filter((line) => /^petstore_keys_(last|reloads)/.test(line));
}

describe("reloading the keys file", () => {
  it("holds a valid file's keys from the next check on, and logs what changed by name", async () => {
    const { ring, metrics, reloader } = await startingWith(`${TILL}\n${CRON}\n`);
    writeFileSync(file, `# rotated\n${TILL}\n${CRON_NEW}\n${AUDIT}\n`);
    const log = collectingLog();
    expect(await reloader.reload(log)).toEqual({ kind: "reloaded", keys: 3 });
    expect(ring.check("cron-secret-key")).toBeUndefined();
    expect(ring.check("cron-secret-key-2")?.name).toBe("cron");
    expect(ring.check("audit-secret-key")?.scope).toBe("read");
    expect(ring.check("till-1-secret-key")?.name).toBe("till-1");
    expect(log.log).toEqual([
      {
        level: "info",
        fields: { file, keys: 3, added: ["audit"], removed: [], changed: ["cron"] },
        message: `keys reloaded: 3 keys from ${file}`,
      },
    ]);
    expect(await reloadSamples(metrics)).toEqual([
      "petstore_keys_last_reload_successful 1",
      "petstore_keys_last_reload_success_timestamp_seconds 42",
      'petstore_keys_reloads_total{result="success"} 1',
      'petstore_keys_reloads_total{result="failure"} 0',
    ]);
  });

  it.each([
    ["a line it cannot read", `${TILL}\nthis is not a keys line\n`, ":2: "],
    ["an unknown scope", `${TILL}\ncron admin sha256:${"0".repeat(64)}\n`, ":2: unknown scope"],
    ["a duplicate name", `${TILL}\n${keysFileLine("till-1", "read", "other")}\n`, ":2: duplicate"],
    ["no key at all", "# everything commented out\n", ": no API key in the file"],
  ])("keeps the old keys when the new file has %s, naming FILE:LINE", async (_why, text, where) => {
    const { ring, metrics, reloader } = await startingWith(`${TILL}\n${CRON}\n`);
    writeFileSync(file, text);
    const log = collectingLog();
    const outcome = await reloader.reload(log);
    expect(outcome.kind).toBe("refused");
    expect(ring.size).toBe(2);
    expect(ring.check("cron-secret-key")?.name).toBe("cron");
    expect(log.log).toHaveLength(1);
    expect(log.log[0]?.level).toBe("error");
    expect(log.log[0]?.message).toContain(`keys file refused, the old keys stay: ${file}${where}`);
    expect(await reloadSamples(metrics)).toEqual([
      "petstore_keys_last_reload_successful 0",
      "petstore_keys_last_reload_success_timestamp_seconds 0",
      'petstore_keys_reloads_total{result="success"} 0',
      'petstore_keys_reloads_total{result="failure"} 1',
    ]);
  });

  it("keeps the old keys when the file is gone, and never quotes a key in its message", async () => {
    const { ring, reloader } = await startingWith(`${TILL}\n`);
    rmSync(file);
    const log = collectingLog();
    expect(await reloader.reload(log)).toEqual({
      kind: "refused",
      reason: `cannot read API keys file ${file}: no such file or directory`,
    });
    expect(ring.check("till-1-secret-key")?.name).toBe("till-1");
    writeFileSync(file, "till-1 write this-looks-like-a-pasted-key extra\n");
    const second = collectingLog();
    await reloader.reload(second);
    expect(JSON.stringify(second.log)).not.toContain("this-looks-like-a-pasted-key");
  });

  it("reads again in the order the signals came, one at a time", async () => {
    const { ring, reloader } = await startingWith(`${TILL}\n`);
    writeFileSync(file, `${TILL}\n${CRON}\n`);
    const log = collectingLog();
    const readings = [reloader.reload(log), reloader.reload(log), reloader.reload(log)];
    expect(await Promise.all(readings)).toEqual([
      { kind: "reloaded", keys: 2 },
      { kind: "reloaded", keys: 2 },
      { kind: "reloaded", keys: 2 },
    ]);
    expect(log.log.map(({ fields }) => fields.added)).toEqual([["cron"], [], []]);
    expect(ring.size).toBe(2);
  });

  it("says there is nothing to read without a keys file", async () => {
    const ring = new KeyRing(await loadApiKeys("env-key"));
    const log = collectingLog();
    const outcome = await keysReloader(
      ring,
      { envKeys: "env-key", file: undefined },
      undefined,
    ).reload(log);
    expect(outcome).toEqual({ kind: "no_file" });
    expect(log.log[0]?.message).toBe(
      "SIGHUP: no keys file (--api-keys-file) to read again; the keys stay",
    );
    expect(ring.check("env-key")?.name).toBe("key-1");
  });

  it("keeps PETSTORE_API_KEYS's keys beside the file's", async () => {
    writeFileSync(file, `${TILL}\n`);
    const ring = new KeyRing(await loadApiKeys("env-key", file));
    writeFileSync(file, `${CRON}\n`);
    await keysReloader(ring, { envKeys: "env-key", file }, undefined).reload(collectingLog());
    expect(ring.check("env-key")?.name).toBe("key-1");
    expect(ring.check("cron-secret-key")?.name).toBe("cron");
    expect(ring.check("till-1-secret-key")).toBeUndefined();
  });
});
