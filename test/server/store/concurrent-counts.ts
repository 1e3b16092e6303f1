/**
 * The count rule under concurrency, the same proof on every engine: tills in two other
 * processes (till-process.ts, each a store of its own on the database, as another server
 * instance is) sell two pets as fast as the store takes them, by conditional PATCHes and by
 * deltas with refs, while this process reads the inventory and posts counts as of the seq the
 * read gave, each after at least one sale of each pet has committed past it.
 *
 * A count sets N + since, `since` the net of the pet's changes after `asOf`. Every count here
 * is one more than the book (N = the quantity read, + 1 to 3), so: each count's `book` is the
 * quantity read, its `since` is minus the sales the tills saw committed between its `asOf` and
 * its own seq, and at the end each pet holds its seed − every sale + every count's variance.
 * A sale lost by a count (in no `since`, yet written before it) or counted twice (in a
 * `since` and kept on top) breaks the last; a sale in the wrong `since` breaks the second.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import type { StoreChoice } from "../../../src/server/store-choice.js";
import type {
  BatchEvaluation,
  FeedRecord,
  SeedPet,
  Store,
} from "../../../src/server/store/store.js";
import { eventually } from "../../support/eventually.js";

/** A database for one test: its stores, the choice another process opens it with, cleanup. */
export interface ConcurrentCountsHarness {
  open(): Promise<Store>;
  choice: StoreChoice;
  cleanup(): Promise<void>;
}

const ROOT = join(import.meta.dirname, "..", "..", "..");
/** Stock the tills cannot sell out however long a slow machine lets them run. */
const SEED = 1_000_000_000;
const PET_IDS = [1n, 2n] as const;
const PETS: SeedPet[] = PET_IDS.map((id) => ({
  id,
  name: `pet ${id}`,
  status: "available",
  quantity: SEED,
  photoUrls: [],
  tags: [],
}));
/** How many counts of both pets this process posts while the tills sell. */
const COUNTS = 12;

/**
 * till-process.ts bundled for Node: its packages (better-sqlite3, pg) stay imports, so the
 * bundle is written under node_modules, where Node finds them.
 */
async function bundleTill(): Promise<{ file: string; remove(): void }> {
  const dir = join(ROOT, "node_modules", ".cache", "petstore-tests");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `till-${process.pid}-${crypto.randomUUID()}.mjs`);
  await build({
    entryPoints: [join(import.meta.dirname, "till-process.ts")],
    outfile: file,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
  return {
    file,
    remove: () => {
      rmSync(file, { force: true });
    },
  };
}

interface Sale {
  petId: bigint;
  seq: bigint;
}

/** A till process and what it has said so far. */
interface Till {
  child: ChildProcessWithoutNullStreams;
  sales: Sale[];
  problems: string[];
  done: number | undefined;
  stderr: string;
}

function startTill(file: string, config: object): Till {
  const child = spawn(process.execPath, [file, JSON.stringify(config)], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const till: Till = { child, sales: [], problems: [], done: undefined, stderr: "" };
  let pending = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const said = JSON.parse(line) as {
        petId?: string;
        seq?: string;
        problem?: string;
        done?: number;
      };
      if (said.seq !== undefined) {
        till.sales.push({ petId: BigInt(said.petId ?? "0"), seq: BigInt(said.seq) });
      } else if (said.problem !== undefined) till.problems.push(said.problem);
      else if (said.done !== undefined) till.done = said.done;
    }
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    till.stderr += chunk;
  });
  return till;
}

/** Ends a till (its stdin closes) and waits for its exit; its last sale is finished first. */
async function stopTill(till: Till): Promise<void> {
  const exited = once(till.child, "exit");
  till.child.stdin.end();
  const [code] = (await exited) as [number | null];
  expect({ code, stderr: till.stderr, problems: till.problems }).toEqual({
    code: 0,
    stderr: "",
    problems: [],
  });
}

/** Every record of the change feed, page by page. */
async function wholeFeed(store: Store): Promise<FeedRecord[]> {
  const records: FeedRecord[] = [];
  for (;;) {
    const page = await store.listFeed(records.at(-1)?.seq ?? 0n, 1000);
    if (page.length === 0) return records;
    records.push(...page);
  }
}

/** One count of both pets as this process posted it, and what it came to. */
interface PostedCount {
  asOf: bigint;
  read: Map<bigint, number>;
  counted: Map<bigint, number>;
  result: BatchEvaluation;
}

/** Declares the concurrency proof of the count rule for one engine. */
export function describeConcurrentCounts(
  engine: string,
  makeHarness: () => Promise<ConcurrentCountsHarness>,
): void {
  describe(`${engine}: counts while tills in other processes sell`, () => {
    let bundle: { file: string; remove(): void } | undefined;
    afterAll(() => bundle?.remove());

    it("keeps every sale committed after a count's asOf on top of it, and none before it, each exactly once", async () => {
      bundle ??= await bundleTill();
      const harness = await makeHarness();
      const store = await harness.open();
      const tills: Till[] = [];
      try {
        await store.seedIfEmpty(PETS);
        const ids = PET_IDS.map(String);
        tills.push(
          startTill(bundle.file, {
            choice: harness.choice,
            kind: "patch",
            petIds: ids,
            refPrefix: "",
          }),
          startTill(bundle.file, {
            choice: harness.choice,
            kind: "delta",
            petIds: [...ids].reverse(),
            refPrefix: "till-b",
          }),
        );
        const sales = () => tills.flatMap((till) => till.sales);
        /** Whether each till still sells: one that stopped fails the test with what it said. */
        const selling = () => {
          for (const till of tills) {
            if (till.problems.length > 0 || till.done !== undefined || till.stderr !== "") {
              throw new Error(`a till stopped: ${JSON.stringify(till.problems)} ${till.stderr}`);
            }
          }
          return true;
        };
        const soldAfter = (seq: bigint) => (petId: bigint) =>
          sales().some((sale) => sale.petId === petId && sale.seq > seq);
        await eventually(
          "both tills selling",
          () => selling() && tills.every((till) => till.sales.length > 0),
        );

        const posted: PostedCount[] = [];
        for (let round = 0; round < COUNTS; round++) {
          // The shelves are counted at this read; the count is typed in after more sales.
          const snapshot = await store.listInventory();
          const read = new Map(snapshot.items.map((item) => [item.petId, item.quantity]));
          await eventually(
            `a sale of each pet after seq ${snapshot.seq}`,
            () => selling() && PET_IDS.every(soldAfter(snapshot.seq)),
          );
          const counted = new Map(
            PET_IDS.map((petId, index) => [
              petId,
              (read.get(petId) ?? 0) + 1 + ((round + index) % 3),
            ]),
          );
          const result = await store.applyBatch({
            atomic: true,
            dryRun: false,
            changes: PET_IDS.map((petId) => ({
              petId,
              count: counted.get(petId) ?? 0,
              asOf: snapshot.seq,
              ref: `count:${round}:${petId}`,
            })),
          });
          if (result.kind !== "evaluated") throw new Error(`count ${round}: ${result.kind}`);
          expect(result.rejected).toBe(false);
          posted.push({ asOf: snapshot.seq, read, counted, result });
        }
        for (const till of tills) await stopTill(till);

        const all = sales();
        // Every sale has a seq of its own, and the feed holds each once, as one less.
        expect(new Set(all.map((sale) => sale.seq)).size).toBe(all.length);
        const feed = await wholeFeed(store);
        const bySeq = new Map(feed.map((record) => [record.seq, record]));
        for (const sale of all) {
          const record = bySeq.get(sale.seq);
          expect(record?.petId).toBe(sale.petId);
          expect((record?.quantity ?? 0) - (record?.previous ?? 0)).toBe(-1);
        }
        // The feed holds the seed, the sales and the counts, nothing else.
        expect(feed).toHaveLength(PET_IDS.length + all.length + COUNTS * PET_IDS.length);

        for (const [round, count] of posted.entries()) {
          // The batch's changes are its last two seqs: pet 1's, then pet 2's.
          const seq = count.result.seq ?? 0n;
          for (const [index, petId] of PET_IDS.entries()) {
            const own = seq - BigInt(PET_IDS.length - 1 - index);
            const between = all.filter(
              (sale) => sale.petId === petId && sale.seq > count.asOf && sale.seq < own,
            ).length;
            const book = count.read.get(petId) ?? 0;
            const counted = count.counted.get(petId) ?? 0;
            expect(count.result.results[index], `count ${round} of pet ${petId}`).toEqual({
              petId,
              outcome: "changed",
              previous: book - between,
              quantity: counted - between,
              status: "available",
              book,
              since: -between,
              counted,
              variance: counted - book,
            });
            expect(
              between,
              `count ${round} of pet ${petId}: a sale after its asOf`,
            ).toBeGreaterThan(0);
            expect(bySeq.get(own)).toMatchObject({ petId, ref: `count:${round}:${petId}` });
          }
        }
        const final = new Map(
          (await store.listInventory()).items.map((item) => [item.petId, item.quantity]),
        );
        for (const [index, petId] of PET_IDS.entries()) {
          const sold = all.filter((sale) => sale.petId === petId).length;
          const variances = posted.reduce(
            (sum, count) => sum + (count.result.results[index]?.variance ?? 0),
            0,
          );
          expect(final.get(petId), `pet ${petId}: ${sold} sold`).toBe(SEED - sold + variances);
        }
      } finally {
        for (const till of tills) if (till.child.exitCode === null) till.child.kill();
        await store.close();
        await harness.cleanup();
      }
    });
  });
}
