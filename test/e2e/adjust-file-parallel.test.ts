/**
 * `inventory adjust --file` from parallel real processes through two real server instances on
 * one PostgreSQL database (reached directly, or through PgBouncer in transaction or in session
 * mode): every row is applied exactly once, whichever instance and however
 * many runs of a file race each other.
 */
import { writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { runCli } from "./support/cli.js";
import { API_KEY, describeEachStore, POSTGRES_STORES, serverForBlock } from "./support/servers.js";

const PET_COUNT = 20;
const START = 100_000;
const ROWS_PER_FILE = 2_500;
const PETS = Array.from({ length: PET_COUNT }, (_, i) => ({
  petId: i + 1,
  name: `Pet ${i + 1}`,
  status: "available" as const,
  quantity: START,
}));

const files = tempDir();
afterAll(() => {
  files.remove();
});

/** A sales file: rows of non-zero deltas over every pet (files overlap on all of them). */
function salesFile(name: string, seed: number): { path: string; deltas: Map<number, number> } {
  const deltas = new Map<number, number>();
  const lines = ["petId,delta"];
  for (let row = 0; row < ROWS_PER_FILE; row++) {
    const petId = ((row * 7 + seed) % PET_COUNT) + 1;
    const delta = ((row * 31 + seed * 17) % 7) - 3 || 1;
    deltas.set(petId, (deltas.get(petId) ?? 0) + delta);
    lines.push(`${petId},${delta}`);
  }
  const path = join(files.dir, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return { path, deltas };
}

interface Report {
  changed: number;
  unchanged: number;
  failed: number;
  results: { outcome: string }[];
}

describeEachStore(
  "adjust --file in parallel through two instances on %s",
  (store) => {
    const { server } = serverForBlock(PETS, { store, instances: 2 });
    const env = (instance: number) => ({
      PETSTORE_BASE_URL: server(instance).url,
      PETSTORE_API_KEY: API_KEY,
    });
    // Each file is one till's day: its name is the run's --ref-prefix.
    const adjust = (path: string, instance: number) =>
      runCli(["inventory", "adjust", "--file", path, "--ref-prefix", basename(path), "--json"], {
        env: env(instance),
        timeoutMs: 60_000,
      });
    const stock = async () => {
      const response = await fetch(`${server().url}/inventory`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      });
      return new Map(
        ((await response.json()) as { petId: number; quantity: number }[]).map((item) => [
          item.petId,
          item.quantity,
        ]),
      );
    };
    const expected = new Map(PETS.map((pet) => [pet.petId, START]));
    const add = (deltas: Map<number, number>) => {
      for (const [petId, delta] of deltas) expected.set(petId, (expected.get(petId) ?? 0) + delta);
    };

    it("8 runs of 8 files at once, on overlapping pets: the totals are exact", async () => {
      const sales = Array.from({ length: 8 }, (_, i) => salesFile(`till-${i}.csv`, i));
      const runs = await Promise.all(sales.map((file, i) => adjust(file.path, i % 2)));
      for (const run of runs) {
        expect(run.stderr).toBe("");
        expect(run.code).toBe(0);
        expect(JSON.parse(run.stdout)).toMatchObject({ changed: ROWS_PER_FILE, failed: 0 });
      }
      for (const file of sales) add(file.deltas);
      expect(await stock()).toEqual(expected);
    }, 120_000);

    it("one file run twice at once through both instances: every row applied once", async () => {
      const file = salesFile("twice.csv", 99);
      const runs = await Promise.all([adjust(file.path, 0), adjust(file.path, 1)]);
      const reports = runs.map((run) => {
        expect(run.code).toBe(0);
        return JSON.parse(run.stdout) as Report;
      });
      expect(reports.reduce((sum, report) => sum + report.changed, 0)).toBe(ROWS_PER_FILE);
      expect(reports.reduce((sum, report) => sum + report.unchanged, 0)).toBe(ROWS_PER_FILE);
      const outcomes = reports.flatMap((report) => report.results.map((result) => result.outcome));
      expect(outcomes.filter((outcome) => outcome === "duplicate")).toHaveLength(ROWS_PER_FILE);
      add(file.deltas);
      expect(await stock()).toEqual(expected);

      // And once more, later: nothing at all.
      const later = await adjust(file.path, 1);
      expect(later.code).toBe(0);
      expect(JSON.parse(later.stdout)).toMatchObject({ changed: 0, unchanged: ROWS_PER_FILE });
      expect(await stock()).toEqual(expected);
    }, 120_000);
  },
  POSTGRES_STORES,
);
