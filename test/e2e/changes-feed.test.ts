/**
 * The change feed under load, with real servers: two instances on one PostgreSQL database
 * (reached directly, or through PgBouncer in transaction or in session mode), six writers
 * through both for ten seconds, and a follower walking the feed with `next` through
 * both: every change is seen exactly once, in strictly increasing seq, and none is missing when
 * compared with every pet's history.
 */
import { expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { API_KEY, describeEachStore, POSTGRES_STORES, serverForBlock } from "./support/servers.js";

/**
 * Enough pets that no pet's history passes the 1,000 records one history page holds, which
 * the comparison below reads: 20 pets did on a fast run (over 20,000 changes in 10 s).
 */
const PET_COUNT = 100;
const PETS = Array.from({ length: PET_COUNT }, (_, i) => ({
  petId: i + 1,
  name: `Pet ${i + 1}`,
  status: "available" as const,
  quantity: 1_000_000,
}));
const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
const WRITE_MS = 10_000;

interface Page {
  changes: { seq: number; petId: number; quantity: number }[];
  next: number;
}

describeEachStore(
  "the change feed through two instances on %s",
  (store) => {
    const { server } = serverForBlock(PETS, { store, instances: 2 });

    it("gives a follower every change of six writers exactly once, in seq order", async () => {
      const urls = [server(0).url, server(1).url];
      // How long the load lasts (not a claim about time: the claims are on what the follower saw).
      const writeUntil = performance.now() + WRITE_MS;
      let acknowledged = 0;
      const writer = async (index: number) => {
        for (let round = 0; performance.now() < writeUntil; round++) {
          const url = urls[(index + round) % 2] ?? "";
          const petId = ((index * 7 + round) % PET_COUNT) + 1;
          const response =
            round % 3 === 0
              ? await fetch(`${url}/inventory/batch`, {
                  method: "POST",
                  headers,
                  body: JSON.stringify({
                    changes: [
                      { petId, delta: -1 },
                      { petId: (petId % PET_COUNT) + 1, delta: -1 },
                    ],
                  }),
                })
              : await fetch(`${url}/inventory/${petId}`, {
                  method: "PATCH",
                  headers,
                  body: JSON.stringify({ quantity: 500_000 + round }),
                });
          expect(response.status).toBe(200);
          await response.arrayBuffer();
          acknowledged += round % 3 === 0 ? 2 : 1;
        }
      };

      const seen: number[] = [];
      let cursor = 0;
      let requests = 0;
      /** One page of the feed through the next instance, its changes added to `seen`. */
      const followOnce = async () => {
        const url = urls[requests++ % 2] ?? "";
        const response = await fetch(`${url}/inventory/changes?after=${cursor}&limit=1000&wait=1`, {
          headers,
        });
        const page = (await response.json()) as Page;
        for (const change of page.changes) seen.push(change.seq);
        if (page.changes.length > 0) expect(page.next).toBe(page.changes.at(-1)?.seq);
        cursor = page.next;
      };
      // The seed's records first, then the follower runs beside the writers.
      const writing = Promise.all(Array.from({ length: 6 }, (_, index) => writer(index)));
      const writers = { done: false };
      void writing.then(() => (writers.done = true));
      while (!writers.done) await followOnce();
      await writing;
      // Catch up with what committed at the end: a change never listed fails here, naming it.
      const total = PET_COUNT + acknowledged;
      await eventually(
        `the follower to see all ${total} changes`,
        async () => {
          await followOnce();
          return seen.length >= total;
        },
        { timeoutMs: 15_000, intervalMs: 0 },
      );

      expect(seen).toHaveLength(total);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1] ?? 0);
      // Every pet's history, record for record, is in the feed.
      const fromHistory: number[] = [];
      for (const pet of PETS) {
        const response = await fetch(
          `${urls[pet.petId % 2]}/inventory/${pet.petId}/history?limit=1000`,
          {
            headers,
          },
        );
        const records = (await response.json()) as { seq: number }[];
        expect(records.length).toBeLessThan(1000);
        fromHistory.push(...records.map((record) => record.seq));
      }
      expect(fromHistory.sort((a, b) => a - b)).toEqual(seen);
      console.log(
        `feed: ${acknowledged} changes by 6 writers in ${WRITE_MS / 1000} s through 2 instances, ${requests} feed requests, every one seen once`,
      );
    }, 60_000);
  },
  POSTGRES_STORES,
);
