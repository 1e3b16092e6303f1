/**
 * Writes refused with a 503, through app.inject(): a write the store refuses for lack of space
 * (StoreFullError) is 503 `storage_full` with `Retry-After` on PATCH and the batch; the log
 * says so once per episode (an error when it opens, an info line when a write commits again);
 * `petstore_writes_refused_total{reason}` counts every refused write, and the lock (`busy`)
 * and an unreachable database (`unavailable`) too, but no read. The store is the real SQLite
 * store, made to refuse its writes the way it does on a full disk (test/e2e/storage-full.test.ts
 * and the stores' own tests fill a real file system).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ServerMetrics } from "../../src/server/metrics.js";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import { StoreFullError } from "../../src/server/store/store-full-error.js";
import { StoreUnavailableError } from "../../src/server/store/store-unavailable-error.js";
import type { Store } from "../../src/server/store/store.js";
import { AUTH, PETS, createTestApp, tempDir, type TestApp } from "./fixture.js";

const STORAGE_FULL_BODY = {
  code: "storage_full",
  message:
    "the server's storage is full, so nothing was changed; retry once space is freed on the server",
  status: 503,
};

const FULL_REASON =
  "the SQLite database /srv/petstore.db cannot grow: database or disk is full (SQLITE_FULL)";

/** What the store does with the next writes: commit them, or refuse them so. */
type Refusal = "full" | "busy" | "unreachable" | undefined;

/** `store`, with its writes (and, when unreachable, its reads) refused while `refusal()` says. */
function refusing(store: Store, refusal: () => Refusal): Store {
  const refused = (method: PropertyKey): (() => Promise<unknown>) | undefined => {
    const now = refusal();
    const write = method === "updateQuantity" || method === "applyBatch";
    if (now === "full" && write) {
      return () => Promise.reject(new StoreFullError(FULL_REASON));
    }
    if (now === "busy" && write) return () => Promise.resolve({ kind: "busy" });
    if (now === "unreachable" && (write || method === "getInventoryItem")) {
      return () =>
        Promise.reject(new StoreUnavailableError("PostgreSQL database x is unreachable"));
    }
    return undefined;
  };
  return new Proxy(store, {
    get(target, method) {
      const value: unknown = Reflect.get(target, method);
      if (typeof value !== "function") return value;
      return refused(method) ?? (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}

interface LogLine {
  level: number;
  msg: string;
  reason?: string;
  code?: string;
}

describe("a write refused for lack of space", () => {
  let temp: ReturnType<typeof tempDir>;
  let test: TestApp;
  let metrics: ServerMetrics;
  let refusal: Refusal;

  beforeEach(async () => {
    temp = tempDir();
    const store = openSqliteStore(`${temp.dir}/petstore.db`);
    await store.seedIfEmpty(PETS);
    refusal = undefined;
    metrics = new ServerMetrics(
      { storeAnswers: () => Promise.resolve(true), keysLoaded: () => 1 },
      Date.now(),
    );
    test = await createTestApp({ store: refusing(store, () => refusal), metrics });
  });

  afterEach(async () => {
    await test.close();
    temp.remove();
  });

  const patch = (quantity: number) =>
    test.app.inject({
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: AUTH,
      payload: { quantity },
    });
  const batch = () =>
    test.app.inject({
      method: "POST",
      url: "/v1/inventory/batch",
      headers: AUTH,
      payload: { changes: [{ petId: 1, delta: 1 }] },
    });
  const logged = () => test.logs.map((line) => JSON.parse(line) as LogLine);
  const episodes = () =>
    logged()
      .filter((line) => line.level >= 50 || line.msg === "storage has space again: writes resume")
      .map((line) => [line.level, line.msg, line.reason]);
  const refusedWrites = async (reason: string) => {
    const text = (await metrics.exposition()).text;
    const series = `petstore_writes_refused_total{reason="${reason}"} `;
    const line = text.split("\n").find((candidate) => candidate.startsWith(series));
    return Number(line?.slice(series.length));
  };

  it("is 503 storage_full with Retry-After on PATCH and on the batch, and reads answer", async () => {
    refusal = "full";
    for (const response of [await patch(5), await batch()]) {
      expect(response.statusCode).toBe(503);
      expect(response.headers["retry-after"]).toBe("1");
      expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(response.json()).toEqual(STORAGE_FULL_BODY);
    }
    const read = await test.app.inject({ url: "/v1/inventory/1", headers: AUTH });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ petId: 1, quantity: 3, status: "available" });
    // Each request line carries the code, for a search of the log.
    expect(
      logged().filter((line) => line.msg === "request" && line.code === "storage_full"),
    ).toHaveLength(2);
  });

  it("logs once per episode: an error when writes are first refused, info when one commits again", async () => {
    refusal = "full";
    for (let n = 0; n < 3; n++) expect((await patch(5 + n)).statusCode).toBe(503);
    expect((await batch()).statusCode).toBe(503);
    const opened = [50, "storage full: writes are refused until space is freed", FULL_REASON];
    expect(episodes()).toEqual([opened]);
    // A handled condition: no stack, no "request failed".
    expect(logged().some((line) => line.msg === "request failed")).toBe(false);
    expect(test.logs.join("\n")).not.toMatch(/\n\s+at /);

    refusal = undefined;
    expect((await patch(8)).statusCode).toBe(200);
    expect((await patch(9)).statusCode).toBe(200);
    const resumed = [30, "storage has space again: writes resume", undefined];
    expect(episodes()).toEqual([opened, resumed]);

    refusal = "full";
    expect((await batch()).statusCode).toBe(503);
    expect((await patch(10)).statusCode).toBe(503);
    expect(episodes()).toEqual([opened, resumed, opened]);
  });

  it("a write that changed nothing (a batch of unchanged sets) does not end the episode", async () => {
    refusal = "full";
    expect((await patch(5)).statusCode).toBe(503);
    refusal = undefined;
    const unchanged = await test.app.inject({
      method: "POST",
      url: "/v1/inventory/batch",
      headers: AUTH,
      payload: { changes: [{ petId: 1, quantity: 3 }] },
    });
    expect(unchanged.json()).toMatchObject({ changed: 0, unchanged: 1 });
    expect(episodes()).toHaveLength(1);
  });

  it("counts refused writes by reason: storage_full, busy, unavailable; never a read", async () => {
    for (const reason of ["storage_full", "busy", "unavailable"]) {
      expect(await refusedWrites(reason)).toBe(0);
    }
    refusal = "full";
    await patch(5);
    await batch();
    await test.app.inject({ url: "/v1/inventory", headers: AUTH });
    expect(await refusedWrites("storage_full")).toBe(2);

    refusal = "busy";
    const busy = await patch(5);
    expect(busy.statusCode).toBe(503);
    expect(busy.json()).toMatchObject({ code: "unavailable" });
    expect(await refusedWrites("busy")).toBe(1);

    refusal = "unreachable";
    expect((await patch(5)).statusCode).toBe(503);
    expect((await test.app.inject({ url: "/v1/inventory/1", headers: AUTH })).statusCode).toBe(503);
    expect(await refusedWrites("unavailable")).toBe(1);
    expect(await refusedWrites("storage_full")).toBe(2);
  });
});

describe("a write refused for lack of space, metrics off", () => {
  it("is 503 storage_full and logged once", async () => {
    const temp = tempDir();
    const store = openSqliteStore(`${temp.dir}/petstore.db`);
    await store.seedIfEmpty(PETS);
    let full = true;
    const test = await createTestApp({ store: refusing(store, () => (full ? "full" : undefined)) });
    try {
      const patch = () =>
        test.app.inject({
          method: "PATCH",
          url: "/v1/inventory/1",
          headers: AUTH,
          payload: { quantity: 4 },
        });
      expect((await patch()).json()).toEqual(STORAGE_FULL_BODY);
      expect((await patch()).statusCode).toBe(503);
      const errors = test.logs.filter((line) => (JSON.parse(line) as LogLine).level >= 50);
      expect(errors).toHaveLength(1);
      full = false;
      expect((await patch()).statusCode).toBe(200);
    } finally {
      await test.close();
      temp.remove();
    }
  });
});
