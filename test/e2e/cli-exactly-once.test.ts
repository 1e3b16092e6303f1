/**
 * The CLI's conditional and exactly-once writes end to end: real `petstore` processes against
 * the real `petstore serve`, on a temporary SQLite file and on PostgreSQL (concurrent adjusts
 * there through two instances on one database). Concurrent adjusts lose no update, a lost
 * response is not applied twice, and apply does not overwrite a concurrent change.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { runCli, spawnCli } from "./support/cli.js";
import { startHoldingProxy } from "./support/proxies.js";
import {
  describeEachStore,
  serverForBlock,
  type SeedFileEntry,
  type StoreKind,
} from "./support/servers.js";
import { startLossyProxy } from "./lossy-proxy.js";

const SEED: SeedFileEntry[] = [
  { petId: 1, name: "Rex", status: "available", quantity: 100 },
  { petId: 2, name: "Tom", status: "pending", quantity: 20 },
  { petId: 3, name: "Kiwi", status: "available", quantity: 10 },
];

const files = tempDir("petstore-conditional-e2e-");
afterAll(() => {
  files.remove();
});

/** The quantity `inventory get --json` reads. */
async function quantityOf(env: Record<string, string>, petId: number): Promise<number> {
  const result = await runCli(["inventory", "get", String(petId), "--json"], { env });
  expect(result).toMatchObject({ code: 0, stderr: "" });
  return (JSON.parse(result.stdout) as { quantity: number }).quantity;
}

describeEachStore("inventory get and set --if-quantity on %s", (store) => {
  const { env } = serverForBlock(SEED, { store });

  it("get prints one entry in every format", async () => {
    expect(await runCli(["inventory", "get", "3"], { env: env() })).toEqual({
      code: 0,
      stdout: "3\t10\tavailable\n",
      stderr: "",
    });
    expect((await runCli(["inventory", "get", "3", "--csv"], { env: env() })).stdout).toBe(
      "petId,quantity,status\n3,10,available\n",
    );
    const missing = await runCli(["inventory", "get", "424242"], { env: env() });
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain("(pet_not_found, HTTP 404)\n");
  });

  it("set --if-quantity writes when the entry holds N, and exits 8 naming the quantity when not", async () => {
    const ok = await runCli(["inventory", "set", "3", "9", "--if-quantity", "10"], {
      env: env(),
    });
    expect(ok).toEqual({ code: 0, stdout: "3\t9\tavailable\n", stderr: "" });
    const stale = await runCli(["inventory", "set", "3", "8", "--if-quantity", "10"], {
      env: env(),
    });
    expect(stale).toEqual({
      code: 8,
      stdout: "",
      stderr:
        "error: pet 3 no longer holds 10: it holds 9 now; nothing was changed\n" +
        "hint: read it again (petstore inventory get 3) and decide, or use petstore inventory adjust 3 +N|-N to change it relative to whatever it holds\n",
    });
    expect(await quantityOf(env(), 3)).toBe(9);
  });

  it("adjust refuses to go below 0 (exit 6) and changes nothing", async () => {
    const result = await runCli(["inventory", "adjust", "3", "-10"], { env: env() });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      "error: pet 3 holds 9: -10 would make it -1, below 0; nothing was changed\n",
    );
    expect(await quantityOf(env(), 3)).toBe(9);
  });
});

/** SQLite: one server; PostgreSQL (each route): two instances on one database, taking turns. */
const adjustTitle = (store: StoreKind) =>
  `concurrent adjusts from separate processes ${store === "sqlite" ? "on SQLite" : `through two instances on ${store}`}`;

describeEachStore(adjustTitle, (store) => {
  const setup = { store, instances: store === "sqlite" ? 1 : 2 };
  const { env, server } = serverForBlock(SEED, setup);
  /** The environment of the `index`th process: the instances take turns. */
  const envOf = (index: number) => env(server(index % setup.instances).url);

  it("20 processes each selling one from 100 all succeed and leave exactly 80", async () => {
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        runCli(["inventory", "adjust", "1", "-1"], { env: envOf(index), timeoutMs: 60_000 }),
      ),
    );
    for (const run of runs) expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(await quantityOf(env(), 1)).toBe(80);
  }, 90_000);

  it("a mix of +3, -2 and set --if-quantity ends at the start plus every acknowledged change", async () => {
    const start = await quantityOf(env(), 2);
    expect(start).toBe(20);
    const adjusts = [
      ...Array.from({ length: 6 }, () => "+3"),
      ...Array.from({ length: 6 }, () => "-2"),
    ].map(async (delta, index) => {
      const result = await runCli(["inventory", "adjust", "2", delta], {
        env: envOf(index),
        timeoutMs: 60_000,
      });
      expect(result).toMatchObject({ code: 0, stderr: "" });
      return Number(delta);
    });
    // What a script does with set --if-quantity: read, write read + 10 only if it still holds
    // what was read, and on exit 8 read again. Exit 8 changes nothing; exit 0 is one +10.
    let conflicts = 0;
    const sets = Array.from({ length: 4 }, async (_, index) => {
      for (let attempt = 0; attempt < 30; attempt++) {
        // Read through one instance, write through the other (when there are two).
        const read = await quantityOf(envOf(index), 2);
        const result = await runCli(
          ["inventory", "set", "2", String(read + 10), "--if-quantity", String(read)],
          { env: envOf(index + 1), timeoutMs: 60_000 },
        );
        if (result.code === 0) return 10;
        expect(result.code).toBe(8);
        expect(result.stderr).toMatch(
          new RegExp(
            `^error: pet 2 no longer holds ${read}: it holds \\d+ now; nothing was changed\n`,
          ),
        );
        conflicts += 1;
      }
      return 0;
    });
    const changes = await Promise.all([...adjusts, ...sets]);
    const acknowledged = changes.reduce((sum, change) => sum + change, 0);
    const final = await quantityOf(env(), 2);
    if (process.env.PETSTORE_E2E_FIGURES === "1") {
      console.log(
        `mix: start ${start}, acknowledged ${acknowledged} (${changes.join(" ")}), ${conflicts} set conflicts, final ${final}`,
      );
    }
    expect(final).toBe(start + acknowledged);
  }, 120_000);
});

describeEachStore("a lost response on %s", (store) => {
  const { env } = serverForBlock(SEED, { store });

  it("adjust -1 whose answer is lost is retried with the same key and applied exactly once", async () => {
    const before = await quantityOf(env(), 1);
    const proxy = await startLossyProxy(env().PETSTORE_BASE_URL ?? "", 1);
    try {
      const result = await runCli(["inventory", "adjust", "1", "-1", "--json"], {
        env: env(proxy.url),
      });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({
        petId: 1,
        quantity: before - 1,
        status: "available",
      });
      const patches = proxy.exchanges.filter((exchange) => exchange.method === "PATCH");
      expect(patches).toHaveLength(2);
      const [lost, retry] = patches;
      expect(lost).toMatchObject({ lost: true, status: 200, ifMatch: `"${before}"` });
      expect(retry).toMatchObject({ lost: false, status: 200, replayed: "true" });
      expect(retry?.idempotencyKey).toBe(lost?.idempotencyKey);
      expect(lost?.idempotencyKey).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(retry?.body).toBe(lost?.body);
    } finally {
      await proxy.stop();
    }
    expect(await quantityOf(env(), 1)).toBe(before - 1);
  });

  it("set --if-quantity whose answer is lost still succeeds (exit 0), not a conflict with itself", async () => {
    const before = await quantityOf(env(), 3);
    const proxy = await startLossyProxy(env().PETSTORE_BASE_URL ?? "", 1);
    try {
      const result = await runCli(
        ["inventory", "set", "3", String(before + 5), "--if-quantity", String(before)],
        { env: env(proxy.url) },
      );
      expect(result).toEqual({ code: 0, stdout: `3\t${before + 5}\tavailable\n`, stderr: "" });
      const patches = proxy.exchanges.filter((exchange) => exchange.method === "PATCH");
      expect(patches.map((patch) => [patch.lost, patch.status, patch.replayed])).toEqual([
        [true, 200, undefined],
        [false, 200, "true"],
      ]);
    } finally {
      await proxy.stop();
    }
    expect(await quantityOf(env(), 3)).toBe(before + 5);
  });

  it("two separate runs of the same command are two changes (a new key each)", async () => {
    const before = await quantityOf(env(), 2);
    const proxy = await startLossyProxy(env().PETSTORE_BASE_URL ?? "", 0);
    try {
      for (let i = 0; i < 2; i++) {
        const result = await runCli(["inventory", "adjust", "2", "+1"], { env: env(proxy.url) });
        expect(result.code).toBe(0);
      }
      const keys = proxy.exchanges
        .filter((exchange) => exchange.method === "PATCH")
        .map((exchange) => exchange.idempotencyKey);
      expect(keys).toHaveLength(2);
      expect(new Set(keys).size).toBe(2);
    } finally {
      await proxy.stop();
    }
    expect(await quantityOf(env(), 2)).toBe(before + 2);
  });
});

describeEachStore("apply with a concurrent writer on %s", (store) => {
  const { env } = serverForBlock(SEED, { store });

  function countsFile(name: string, text: string): string {
    const path = join(files.dir, name);
    writeFileSync(path, text);
    return path;
  }

  it("reports a row changed between its read and its write as a conflict and keeps the concurrent value", async () => {
    const counts = countsFile("counted.csv", "petId,quantity\n1,50\n2,60\n3,10\n");
    const proxy = await startHoldingProxy(env().PETSTORE_BASE_URL ?? "");
    try {
      const apply = spawnCli(["inventory", "apply", "--json", counts], { env: env(proxy.url) });
      // The batch of the two changes (pets 1 and 2), held.
      await proxy.writesHeld(1);
      // A sale at the till while the counts are being written.
      const sale = await runCli(["inventory", "adjust", "1", "-3"], { env: env() });
      expect(sale.code).toBe(0);
      proxy.release();
      expect(await apply.exited).toBe(7);
      expect(JSON.parse(apply.stdout())).toEqual({
        changed: 1,
        unchanged: 1,
        failed: 1,
        notAttempted: 0,
        results: [
          {
            petId: 1,
            previous: 100,
            desired: 50,
            outcome: "conflict",
            current: 97,
            reason: "changed to 97 since it was read; not overwritten",
            code: "conflict",
          },
          { petId: 2, previous: 20, desired: 60, outcome: "changed" },
          { petId: 3, previous: 10, desired: 10, outcome: "unchanged" },
        ],
      });
      expect(apply.stderr()).toContain(
        "error: 1 of 2 changes failed (the report lists them; 1 in conflict: changed by someone else since the run read it, not overwritten); the other 1 was applied\n",
      );
    } finally {
      await proxy.stop();
    }
    expect(await quantityOf(env(), 1)).toBe(97);
    expect(await quantityOf(env(), 2)).toBe(60);

    // Re-running reads the stock again and applies the count over the new value.
    const again = await runCli(["inventory", "apply", counts], { env: env() });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(
      `${counts}: 1 changed, 2 unchanged, 0 failed\nchanged:\n  pet 1: 97 -> 50\n`,
    );
    expect(await quantityOf(env(), 1)).toBe(50);
  });

  it("--force writes over the concurrent change", async () => {
    const counts = countsFile("forced.csv", "petId,quantity\n3,40\n");
    const proxy = await startHoldingProxy(env().PETSTORE_BASE_URL ?? "");
    try {
      const apply = spawnCli(["inventory", "apply", "--force", counts], { env: env(proxy.url) });
      await proxy.writesHeld(1);
      const sale = await runCli(["inventory", "adjust", "3", "-1"], { env: env() });
      expect(sale.code).toBe(0);
      proxy.release();
      expect(await apply.exited).toBe(0);
      // What the entry held when the write was applied: the sale's 9, not the 10 read.
      expect(apply.stdout()).toBe(
        `${counts}: 1 changed, 0 unchanged, 0 failed\nchanged:\n  pet 3: 9 -> 40\n`,
      );
    } finally {
      await proxy.stop();
    }
    expect(await quantityOf(env(), 3)).toBe(40);
  });
});
