/**
 * A till in a process of its own, for concurrent-counts.ts: it opens the store as `petstore
 * serve` opens it (openStore) and sells one of its pets after another, as fast as the store
 * takes them, until its stdin ends. Node 20 cannot run TypeScript, so the test bundles this
 * file with esbuild first.
 *
 * argv[2], JSON: `choice` (the StoreChoice), `kind` (`patch`: read the entry, then set one
 * less on the condition that it still holds what was read, as a till PATCHing with If-Match
 * does, again on a 412; `delta`: a batch change of −1 with a ref, then the same change again,
 * as a retry after a lost answer, which must come back `duplicate`), `petIds`, `refPrefix`.
 *
 * stdout, one JSON line each: `{"petId":"1","seq":"42"}` for every sale applied (the seq of
 * its change); `{"problem":"…"}` for anything unexpected; `{"done":N}` once it has stopped.
 */
import { openStore, type StoreChoice } from "../../../src/server/store-choice.js";
import type { Store } from "../../../src/server/store/store.js";

interface TillConfig {
  choice: StoreChoice;
  kind: "patch" | "delta";
  petIds: string[];
  refPrefix: string;
}

const config = JSON.parse(process.argv[2] ?? "{}") as TillConfig;

function say(line: object): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** One sale by a conditional set: the seq of its change. */
async function sellByPatch(store: Store, petId: bigint): Promise<bigint> {
  let entry = (await store.getInventoryItem(petId))?.item;
  for (;;) {
    if (entry === undefined) throw new Error(`pet ${petId} is gone`);
    const held = entry.quantity;
    const result = await store.updateQuantity(petId, held - 1, {
      condition: { kind: "quantity_in", quantities: [held] },
    });
    if (result.kind === "updated" && result.seq !== undefined) return result.seq;
    // Changed since it was read (a count, the other till): sell from what it holds now.
    if (result.kind === "precondition_failed") entry = result.current;
    else throw new Error(`a PATCH of pet ${petId} came to ${JSON.stringify(result.kind)}`);
  }
}

/** One sale by a delta with a ref, and the same sale again: the seq of its change. */
async function sellByDelta(store: Store, petId: bigint, ref: string): Promise<bigint> {
  const sale = { atomic: false, dryRun: false, changes: [{ petId, delta: -1, ref }] };
  const result = await store.applyBatch(sale);
  if (result.kind !== "evaluated" || result.results[0]?.outcome !== "changed") {
    throw new Error(`the sale ${ref} came to ${JSON.stringify(result)}`);
  }
  const again = await store.applyBatch(sale);
  if (again.kind !== "evaluated" || again.results[0]?.outcome !== "duplicate") {
    throw new Error(`the sale ${ref} sent again came to ${JSON.stringify(again)}`);
  }
  if (result.seq === undefined) throw new Error(`the sale ${ref} has no seq`);
  return result.seq;
}

const store = await openStore(config.choice, {
  lockTimeoutMs: 30_000,
  onConnectionError: (message) => {
    say({ problem: message });
  },
});
/** Whether stdin is still open: the test ends it to stop the till. */
const stdin = { open: true };
process.stdin.on("end", () => {
  stdin.open = false;
});
process.stdin.resume();
let sold = 0;
try {
  while (stdin.open) {
    const petId = BigInt(config.petIds[sold % config.petIds.length] ?? "0");
    const seq =
      config.kind === "patch"
        ? await sellByPatch(store, petId)
        : await sellByDelta(store, petId, `${config.refPrefix}:${sold}`);
    say({ petId: petId.toString(), seq: seq.toString() });
    sold++;
  }
} catch (error) {
  say({ problem: error instanceof Error ? error.message : String(error) });
} finally {
  await store.close();
  say({ done: sold });
  process.stdin.destroy();
}
