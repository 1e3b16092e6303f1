/**
 * `inventory apply` through POST /v1/inventory/batch, end to end: the real binary against the
 * real `petstore serve`, directly or through a proxy that counts its writes or stands for a
 * server without the batch endpoint (it answers the route 404, as a spec-only server does).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { runCli } from "./support/cli.js";
import { startHoldingProxy } from "./support/proxies.js";
import { describeEachStore, serverForBlock, type SeedFileEntry } from "./support/servers.js";

const PETS = 1_200;
const SEED: SeedFileEntry[] = Array.from({ length: PETS }, (_, i) => ({
  petId: i + 1,
  name: `Pet ${i + 1}`,
  status: "available",
  quantity: 10,
}));

const FALLBACK_NOTE =
  "note: the server has no batch endpoint (POST /inventory/batch answered 404): applying one PATCH per row instead\n";

const files = tempDir("petstore-apply-batch-e2e-");
afterAll(() => {
  files.remove();
});

function countsFile(name: string, rows: readonly (readonly [number, number])[]): string {
  const path = join(files.dir, name);
  writeFileSync(path, `petId,quantity\n${rows.map(([id, q]) => `${id},${q}\n`).join("")}`);
  return path;
}

/** Every pet's quantity, from `inventory list --json`. */
async function stock(env: Record<string, string>): Promise<Map<number, number>> {
  const result = await runCli(["inventory", "list", "--json"], { env });
  expect(result.code).toBe(0);
  const items = JSON.parse(result.stdout) as { petId: number; quantity: number }[];
  return new Map(items.map((item) => [item.petId, item.quantity]));
}

/** The history of one pet as `inventory history --json` prints it. */
async function history(env: Record<string, string>, petId: number): Promise<string> {
  const result = await runCli(["inventory", "history", String(petId), "--json"], { env });
  expect(result.code).toBe(0);
  return result.stdout;
}

describe("apply through the batch endpoint", () => {
  const { env } = serverForBlock(SEED);

  it("sends 1,200 changed rows as two requests and applies every one", async () => {
    const proxy = await startHoldingProxy(env().PETSTORE_BASE_URL ?? "");
    proxy.release();
    try {
      const path = countsFile(
        "all.csv",
        SEED.map((_, i) => [i + 1, 20 + (i % 5)] as const),
      );
      const result = await runCli(["inventory", "apply", "--json", path], {
        env: env(proxy.url),
      });
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(result.stdout)).toMatchObject({ changed: PETS, unchanged: 0, failed: 0 });
      expect(proxy.writes).toEqual(["POST /v1/inventory/batch", "POST /v1/inventory/batch"]);
    } finally {
      await proxy.stop();
    }
    const after = await stock(env());
    expect(after.get(1)).toBe(20);
    expect(after.get(PETS)).toBe(20 + ((PETS - 1) % 5));
  });

  it("--dry-run shows an unknown pet as failing and exits 7, as the real run then does", async () => {
    const path = countsFile("unknown.csv", [
      [1, 31],
      [424242, 3],
      [2, 32],
    ]);
    const before = await stock(env());
    const dry = await runCli(["inventory", "apply", "--dry-run", path], { env: env() });
    expect(dry.code).toBe(7);
    expect(dry.stdout).toBe(`1\t${before.get(1)}\t31\n2\t${before.get(2)}\t32\n`);
    expect(dry.stderr).toBe(
      "would fail:\n  pet 424242: no such pet\n" +
        "dry run: 2 of 3 rows would change, 1 would fail; nothing was changed\n" +
        "error: dry run: 1 of 3 changes would fail (the report lists them); nothing was changed\n" +
        "hint: a real run would apply the others and exit 7 too; fix the failing rows first, or run it as it is\n",
    );
    expect(await stock(env())).toEqual(before);

    const real = await runCli(["inventory", "apply", path], { env: env() });
    expect(real.code).toBe(7);
    expect(real.stdout).toBe(
      `${path}: 2 changed, 0 unchanged, 1 failed\n` +
        `changed:\n  pet 1: ${before.get(1)} -> 31\n  pet 2: ${before.get(2)} -> 32\n` +
        "failed:\n  pet 424242: no such pet\n",
    );
    expect(real.stderr).toBe(
      "error: 1 of 3 changes failed (the report lists them); the other 2 were applied\n" +
        "hint: fix or remove the failed rows (the report says why each failed), then run it again: it changes only what is still different\n",
    );
  });

  it("--dry-run --json says what each row would do", async () => {
    const before = await stock(env());
    const three = before.get(3) ?? 0;
    const four = before.get(4) ?? 0;
    const path = countsFile("dry.json.csv", [
      [3, three],
      [4, four + 1],
      [424242, 1],
    ]);
    const result = await runCli(["inventory", "apply", "--dry-run", "--json", path], {
      env: env(),
    });
    expect(result.code).toBe(7);
    expect(JSON.parse(result.stdout)).toEqual({
      dryRun: true,
      wouldChange: 1,
      unchanged: 1,
      wouldFail: 1,
      notAttempted: 0,
      results: [
        { petId: 3, previous: three, desired: three, outcome: "unchanged" },
        { petId: 4, previous: four, desired: four + 1, outcome: "would_change" },
        {
          petId: 424242,
          previous: null,
          desired: 1,
          outcome: "would_fail",
          reason: "no such pet",
          code: "not_found",
        },
      ],
    });
  });
});

describeEachStore("apply --atomic on %s", (store) => {
  const { env } = serverForBlock(SEED.slice(0, 10), { store });

  it("one bad row (an unknown pet): exit 7, nothing changed, no history written", async () => {
    const before = await stock(env());
    const historyBefore = await history(env(), 5);
    const path = countsFile(`atomic-${store}.csv`, [
      [5, 55],
      [424242, 1],
      [6, 66],
    ]);
    const result = await runCli(["inventory", "apply", "--atomic", path], { env: env() });
    expect(result.code).toBe(7);
    expect(result.stdout).toBe(
      `${path}: 0 changed, 0 unchanged, 3 failed (the atomic batch was rejected for 1 of them: nothing was changed)\n` +
        "failed:\n  pet 424242: no such pet\n" +
        "not applied (2 rows: the batch was atomic and the rows above failed; fix them and run again):\n" +
        "  pet 5: 10 -> 55\n  pet 6: 10 -> 66\n",
    );
    expect(result.stderr).toBe(
      "error: the atomic batch was rejected: 1 of 3 changes failed (the report lists them); nothing was changed\n" +
        "hint: fix or remove the failed rows and run again (without --atomic the other rows would be applied)\n",
    );
    expect(await stock(env())).toEqual(before);
    expect(await history(env(), 5)).toBe(historyBefore);

    // Without the bad row, the same batch applies whole.
    const good = countsFile(`atomic-good-${store}.csv`, [
      [5, 55],
      [6, 66],
    ]);
    const applied = await runCli(["inventory", "apply", "--atomic", "--json", good], {
      env: env(),
    });
    expect(applied.code).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ changed: 2, failed: 0 });
    expect((await stock(env())).get(6)).toBe(66);
  });
});

describe("apply against a server without the batch endpoint", () => {
  const { env } = serverForBlock(SEED.slice(0, 40));

  it("applies every row with one PATCH each, and says so once", async () => {
    const proxy = await startHoldingProxy(env().PETSTORE_BASE_URL ?? "", {
      withoutBatchRoute: true,
    });
    proxy.release();
    try {
      const rows = Array.from({ length: 40 }, (_, i) => [i + 1, 100 + i] as const);
      const result = await runCli(["inventory", "apply", countsFile("spec-only.csv", rows)], {
        env: env(proxy.url),
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe(FALLBACK_NOTE);
      expect(result.stdout).toMatch(/: 40 changed, 0 unchanged, 0 failed\n/);
      expect(proxy.batchesRefused()).toBe(1);
      expect(proxy.writes).toHaveLength(40);
      expect(proxy.writes.every((write) => write.startsWith("PATCH /v1/inventory/"))).toBe(true);
    } finally {
      await proxy.stop();
    }
    const after = await stock(env());
    expect(Array.from({ length: 40 }, (_, i) => after.get(i + 1))).toEqual(
      Array.from({ length: 40 }, (_, i) => 100 + i),
    );
  });

  it("--dry-run shows the differences it read, and says the server was not asked; a pet the inventory does not list would fail (exit 7)", async () => {
    const proxy = await startHoldingProxy(env().PETSTORE_BASE_URL ?? "", {
      withoutBatchRoute: true,
    });
    proxy.release();
    try {
      const path = countsFile("spec-only-dry.csv", [
        [1, 7],
        [424242, 1],
      ]);
      const result = await runCli(["inventory", "apply", "--dry-run", path], {
        env: env(proxy.url),
      });
      expect(result).toEqual({
        code: 7,
        stdout: "1\t100\t7\n",
        stderr:
          "note: the server has no batch endpoint (POST /inventory/batch answered 404): this dry run shows what differs from the stock it read; the server was not asked whether each change would apply\n" +
          "would fail:\n  pet 424242: no such pet: not in the inventory the server listed\n" +
          "dry run: 1 of 2 rows would change, 1 would fail; nothing was changed\n" +
          "error: dry run: 1 of 2 changes would fail (the report lists them); nothing was changed\n" +
          "hint: a real run would apply the others and exit 7 too; fix the failing rows first, or run it as it is\n",
      });
      expect(proxy.writes).toEqual([]);
    } finally {
      await proxy.stop();
    }
  });

  it("--atomic: exit 2, nothing changed", async () => {
    const proxy = await startHoldingProxy(env().PETSTORE_BASE_URL ?? "", {
      withoutBatchRoute: true,
    });
    proxy.release();
    const before = await stock(env());
    try {
      const result = await runCli(
        ["inventory", "apply", "--atomic", countsFile("spec-only-atomic.csv", [[1, 8]])],
        { env: env(proxy.url) },
      );
      expect(result).toMatchObject({ code: 2, stdout: "" });
      expect(result.stderr).toBe(
        "error: --atomic needs the batch endpoint, and the server has no batch endpoint (POST /inventory/batch answered 404); nothing was applied\n" +
          "hint: without --atomic the rows are applied one by one (each alone, not all or none); or use a server that has POST /inventory/batch\n",
      );
      expect(proxy.writes).toEqual([]);
    } finally {
      await proxy.stop();
    }
    expect(await stock(env())).toEqual(before);
  });
});
