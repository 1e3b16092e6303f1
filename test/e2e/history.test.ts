/**
 * Who changed what, end to end: the real server with a named write key, the real CLI setting,
 * adjusting and applying with reasons, `inventory history` reading them back, the request ids
 * matched against the server's own log, and the history surviving kill -9; on SQLite and on
 * PostgreSQL.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { runCli } from "./support/cli.js";
import {
  describeEachStore,
  freshStore,
  startServer,
  type RunningServer,
  type TestStore,
} from "./support/servers.js";

const TILL_KEY = "till-key-1c5e9a0b7d";
const READ_KEY = "report-key-88f0e2a4";
const sha256 = (key: string) => createHash("sha256").update(key).digest("hex");

interface Change {
  at: string;
  petId: number;
  previous: number | null;
  quantity: number;
  keyName: string | null;
  requestId: string | null;
  reason: string | null;
}

describeEachStore("history of every change on %s: key name, reason, request id", (kind) => {
  const temp = tempDir();
  let store: TestStore;
  const keysFile = join(temp.dir, "keys.txt");
  const seed = Array.from({ length: 50 }, (_, i) => ({
    petId: i + 1,
    name: `Pet ${i + 1}`,
    status: "available" as const,
    quantity: 10,
  }));
  let server: RunningServer;
  const start = () =>
    startServer({
      ...store.options,
      seed,
      args: ["--api-keys-file", keysFile],
      env: { PETSTORE_API_KEYS: "" },
    });
  const as = (key: string) => ({ PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: key });
  const history = async (petId: number, limit = 20): Promise<Change[]> => {
    const result = await runCli(
      ["inventory", "history", String(petId), "--json", "--limit", String(limit)],
      {
        env: as(READ_KEY),
      },
    );
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Change[];
  };
  /** The request ids the server logged for PATCHes it answered 200. */
  const loggedPatchIds = () =>
    server
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { reqId?: string; method?: string; status?: number })
      .filter((line) => line.method === "PATCH" && line.status === 200)
      .map((line) => line.reqId);

  beforeAll(async () => {
    writeFileSync(
      keysFile,
      `till-1 write sha256:${sha256(TILL_KEY)}\ncron-report read sha256:${sha256(READ_KEY)}\n`,
    );
    store = await freshStore(kind);
    server = await start();
  });
  afterAll(async () => {
    await server.stop();
    await store.remove();
    temp.remove();
  });

  it("keeps the seed as each entry's first record", async () => {
    expect(await history(1)).toEqual([
      {
        seq: expect.any(Number) as number,
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
        petId: 1,
        previous: null,
        quantity: 10,
        keyName: null,
        requestId: null,
        reason: "seed pets.json",
        ref: null,
      },
    ]);
  });

  it("set and adjust record the key's name, the reason (UTF-8 intact) and the logged request id", async () => {
    const set = await runCli(["inventory", "set", "1", "7", "--reason", "Inventur März 🐈"], {
      env: as(TILL_KEY),
    });
    expect(set.code, set.stderr).toBe(0);
    const adjust = await runCli(["inventory", "adjust", "1", "-2"], { env: as(TILL_KEY) });
    expect(adjust.code, adjust.stderr).toBe(0);
    const [latest, earlier] = await history(1);
    expect(latest).toMatchObject({ previous: 7, quantity: 5, keyName: "till-1", reason: null });
    expect(earlier).toMatchObject({
      previous: 10,
      quantity: 7,
      keyName: "till-1",
      reason: "Inventur März 🐈",
    });
    // The server logs a request once its answer is sent: the line may come a moment later.
    await vi.waitFor(() => {
      expect(loggedPatchIds()).toEqual([earlier?.requestId, latest?.requestId]);
    });
    // Nothing of the keys in the log: names only.
    expect(server.stderr()).toContain('"keyName":"till-1"');
    expect(server.stderr()).not.toContain(TILL_KEY);
  });

  it("a read key reads the history but cannot write: exit 4, no record", async () => {
    const refused = await runCli(["inventory", "set", "2", "1", "--reason", "x"], {
      env: as(READ_KEY),
    });
    expect(refused.code).toBe(4);
    expect(await history(2)).toHaveLength(1);
  });

  it("apply of 50 rows gives 50 records, each naming the file", async () => {
    const counts = join(temp.dir, "counts.csv");
    writeFileSync(
      counts,
      `petId,quantity\n${seed.map((pet) => `${pet.petId},${pet.petId + 100}`).join("\n")}\n`,
    );
    const apply = await runCli(["inventory", "apply", counts, "--json"], { env: as(TILL_KEY) });
    expect(apply.code, apply.stderr).toBe(0);
    expect(JSON.parse(apply.stdout)).toMatchObject({ changed: 50, failed: 0 });
    const latest = await Promise.all(
      seed.map(async (pet) => {
        const response = await fetch(`${server.url}/inventory/${pet.petId}/history?limit=1`, {
          headers: { authorization: `Bearer ${READ_KEY}` },
        });
        return ((await response.json()) as Change[])[0];
      }),
    );
    expect(latest.map((record) => record?.reason)).toEqual(seed.map(() => "apply counts.csv"));
    expect(latest.map((record) => record?.quantity)).toEqual(seed.map((pet) => pet.petId + 100));
    expect(new Set(latest.map((record) => record?.keyName))).toEqual(new Set(["till-1"]));
  });

  it("survives kill -9 and a restart", async () => {
    const before = await history(1);
    expect(await server.stop("SIGKILL")).toBeNull();
    server = await start();
    expect(await history(1)).toEqual(before);
    expect(before.map((record) => record.quantity)).toEqual([101, 5, 7, 10]);
  });
});
