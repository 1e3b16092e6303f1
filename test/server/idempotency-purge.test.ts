import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startIdempotencyPurge } from "../../src/server/idempotency-purge.js";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import { IDEMPOTENCY_TTL_MS, type Store } from "../../src/server/store/store.js";
import { PETS, tempDir } from "./fixture.js";

const T0 = Date.UTC(2026, 0, 1);

/** Writes `count` keyed updates of pet 1 at T0 + i ms. */
async function keyedWrites(store: Store, count: number, prefix: string, at = T0): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      store.updateQuantity(1n, i, {
        idempotency: {
          owner: "o",
          key: `${prefix}${i}`,
          fingerprint: "f",
          at: at + i,
          render: () => ({ status: 200, body: "{}", etag: null }),
        },
      }),
    ),
  );
}

describe("purging expired idempotency records", () => {
  let temp: ReturnType<typeof tempDir>;
  let store: Store;
  beforeEach(async () => {
    temp = tempDir();
    store = openSqliteStore(join(temp.dir, "store.db"));
    await store.seedIfEmpty(PETS);
  });
  afterEach(async () => {
    vi.useRealTimers();
    await store.close();
    temp.remove();
  });

  it("deletes only expired records, in batches with the event loop turning between them", async () => {
    await keyedWrites(store, 25, "old");
    await keyedWrites(store, 5, "new", T0 + IDEMPOTENCY_TTL_MS);
    const purgeCalls = vi.spyOn(store, "purgeIdempotencyRecords");
    let now = T0 + IDEMPOTENCY_TTL_MS + 10; // the first 10 old ones have expired
    const purge = startIdempotencyPurge(store, { now: () => now, batchSize: 4 });
    expect(await purge.runOnce()).toBe(10);
    // 4 + 4 + 2: the last, short batch ends the run.
    expect(purgeCalls.mock.calls).toEqual([
      [T0 + 10, 4],
      [T0 + 10, 4],
      [T0 + 10, 4],
    ]);
    now = T0 + 2 * IDEMPOTENCY_TTL_MS + 10;
    // Every record left: the 15 old ones and the 5 new ones; their keys start new requests.
    expect(await purge.runOnce()).toBe(20);
    expect(
      await store.updateQuantity(1n, 7, {
        idempotency: {
          owner: "o",
          key: "new4",
          fingerprint: "another request",
          at: now,
          render: () => ({ status: 200, body: "{}", etag: null }),
        },
      }),
    ).toMatchObject({ kind: "updated" });
    await purge.stop();
  });

  it("runs on its timer, which does not keep the process alive, and stops", async () => {
    await keyedWrites(store, 3, "k");
    // Only the interval is faked: the store's group commit still turns on setImmediate.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const purgeCalls = vi.spyOn(store, "purgeIdempotencyRecords");
    const unref = vi.spyOn(globalThis, "setInterval");
    const purge = startIdempotencyPurge(store, {
      now: () => T0 + IDEMPOTENCY_TTL_MS + 100,
      intervalMs: 1000,
    });
    const timer = unref.mock.results[0]?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    await vi.advanceTimersByTimeAsync(999);
    expect(purgeCalls).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(purgeCalls).toHaveBeenCalledTimes(1);
    expect(await purgeCalls.mock.results[0]?.value).toBe(3);
    await purge.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(purgeCalls).toHaveBeenCalledTimes(1);
  });

  it("reports a failed purge and tries again on the next tick", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const failure = new Error("locked");
    const purgeCalls = vi
      .spyOn(store, "purgeIdempotencyRecords")
      .mockRejectedValueOnce(failure)
      .mockResolvedValueOnce(0);
    const errors: unknown[] = [];
    const purge = startIdempotencyPurge(store, {
      now: () => T0,
      intervalMs: 100,
      onError: (error) => errors.push(error),
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(errors).toEqual([failure]);
    await vi.advanceTimersByTimeAsync(100);
    expect(purgeCalls).toHaveBeenCalledTimes(2);
    expect(errors).toEqual([failure]);
    await purge.stop();
  });
});
