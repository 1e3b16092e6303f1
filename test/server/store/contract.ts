/**
 * The store contract: what every Store promises the routes, proven the same way on every
 * store. A store's test file calls `describeStoreContract` with how to open it; checks that
 * only make sense for one engine (SQLite's WAL, say) stay in that store's own file.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Order } from "../../../src/api/types.js";
import {
  IDEMPOTENCY_TTL_MS,
  type BatchEvaluation,
  type BatchResult,
  type IdempotencyClaim,
  type Store,
  type StoredResponse,
  type WriteOutcome,
} from "../../../src/server/store/store.js";
import { PETS, petsWithIds } from "../fixture.js";

/** Any seq: where the test is not about which (a seq test pins them). */
const ANY_SEQ: unknown = expect.any(BigInt);

/** Opens stores for one test; every store it opens is closed by the suite. */
export interface StoreHarness {
  /**
   * Opens a connection to this test's database, empty at the test's start. Opening it again
   * gives another store on the same data, as a second server (another process, another
   * instance) would have.
   */
  open(): Promise<Store>;
  /** Opens a connection to a second, separate empty database. */
  openOther(): Promise<Store>;
  /** Removes what the test left (files, schemas). */
  cleanup(): Promise<void>;
}

const ORDERS: readonly Order[] = [
  {
    id: 1n,
    petId: 1n,
    quantity: 2,
    shipDate: "2026-01-02T03:04:05.000Z",
    status: "placed",
    complete: false,
  },
  {
    id: 9223372036854775807n,
    petId: 9223372036854775807n,
    quantity: 1,
    shipDate: "2026-02-03T04:05:06.000Z",
    status: "delivered",
    complete: true,
  },
];

const SEEDED_INVENTORY = [
  { petId: 1n, quantity: 3, status: "available" },
  { petId: 2n, quantity: 0, status: "sold" },
  { petId: 9223372036854775807n, quantity: 5, status: "pending" },
];

/** What a claim's render gives: the outcome as text, so a test sees what was kept. */
const render = (outcome: WriteOutcome): StoredResponse => {
  switch (outcome.kind) {
    case "updated":
      return {
        status: 200,
        body: `q=${outcome.item.quantity}`,
        etag: `"${outcome.item.quantity}"`,
      };
    case "not_found":
      return { status: 404, body: "none", etag: null };
    case "precondition_failed":
      return {
        status: 412,
        body: `now=${outcome.current.quantity}`,
        etag: `"${outcome.current.quantity}"`,
      };
  }
};

const T0 = Date.UTC(2026, 0, 1);

/** An idempotency claim of owner "alice" (unless given) at T0 (unless given). */
const claim = (key: string, fingerprint: string, more: Partial<IdempotencyClaim> = {}) => ({
  idempotency: { owner: "alice", key, fingerprint, at: T0, render, ...more },
});

/** Declares the contract tests for one store. */
export function describeStoreContract(name: string, makeHarness: () => Promise<StoreHarness>) {
  describe(`${name}: the store contract`, () => {
    let harness: StoreHarness;
    let opened: Store[];
    const track = async (store: Promise<Store>) => {
      const open = await store;
      opened.push(open);
      return open;
    };
    const open = () => track(harness.open());
    const openOther = () => track(harness.openOther());
    /** Closes one store now (close is idempotent for the suite's final sweep). */
    const close = async (store: Store) => {
      opened = opened.filter((other) => other !== store);
      await store.close();
    };

    beforeEach(async () => {
      opened = [];
      harness = await makeHarness();
    });
    afterEach(async () => {
      for (const store of opened) await store.close();
      await harness.cleanup();
    });

    it("starts empty", async () => {
      const store = await open();
      expect((await store.listInventory()).items).toEqual([]);
      expect(await store.listOrders()).toEqual([]);
    });

    it("lists the inventory ordered by petId, int64 ids exact", async () => {
      const store = await open();
      await store.seedIfEmpty([...PETS].reverse());
      expect((await store.listInventory()).items).toEqual(SEEDED_INVENTORY);
    });

    it("keeps pets, orders and quantities across a reopen", async () => {
      const first = await open();
      await first.seedIfEmpty(PETS, ORDERS);
      expect(await first.updateQuantity(9223372036854775807n, 12)).toEqual({
        kind: "updated",
        item: { petId: 9223372036854775807n, quantity: 12, status: "pending" },
        seq: ANY_SEQ,
      });
      await close(first);
      const second = await open();
      expect((await second.listInventory()).items).toEqual([
        { petId: 1n, quantity: 3, status: "available" },
        { petId: 2n, quantity: 0, status: "sold" },
        { petId: 9223372036854775807n, quantity: 12, status: "pending" },
      ]);
      expect(await second.listOrders()).toEqual(ORDERS);
      expect(await second.getPet(2n)).toEqual({
        id: 2n,
        name: "Tom",
        status: "sold",
        photoUrls: ["https://x/tom.png"],
        tags: [{ id: 7n, name: "cat" }],
        category: { id: 2n, name: "Cats" },
      });
      expect(await second.getPet(1n)).toEqual({
        id: 1n,
        name: "Rex",
        status: "available",
        photoUrls: [],
        tags: [],
      });
    });

    it("seeds only an empty store, all or nothing", async () => {
      const [pet] = PETS;
      if (!pet) throw new Error("fixture has no pet");
      const store = await open();
      expect(await store.seedIfEmpty(PETS)).toBe(true);
      expect(await store.seedIfEmpty([{ ...pet, id: 50n }])).toBe(false);
      expect((await store.listInventory()).items).toEqual(SEEDED_INVENTORY);

      const other = await openOther();
      await expect(other.seedIfEmpty([pet, pet])).rejects.toThrow();
      expect((await other.listInventory()).items).toEqual([]);
    });

    it("answers not_found for an unknown pet and changes nothing", async () => {
      const store = await open();
      await store.seedIfEmpty(PETS);
      const revision = await store.revision();
      expect(await store.updateQuantity(404n, 1)).toEqual({ kind: "not_found" });
      expect(await store.getPet(404n)).toBeUndefined();
      expect(await store.revision()).toBe(revision);
      expect((await store.listInventory()).items).toEqual(SEEDED_INVENTORY);
    });

    it("changes its revision at once on its own writes", async () => {
      const store = await open();
      await store.seedIfEmpty(PETS);
      const r1 = await store.revision();
      await store.updateQuantity(1n, 9);
      const r2 = await store.revision();
      expect(r2).not.toBe(r1);
      await store.updateQuantity(1n, 9);
      expect(await store.revision()).not.toBe(r2);
    });

    it("shows another connection's writes in its inventory and revision", async () => {
      const store = await open();
      await store.seedIfEmpty(PETS);
      const before = await store.revision();
      const other = await open();
      await other.updateQuantity(1n, 10);
      await close(other);
      expect(await store.revision()).not.toBe(before);
      expect((await store.listInventory()).items[0]).toEqual({
        petId: 1n,
        quantity: 10,
        status: "available",
      });
    });

    it("shows a write acknowledged through one store to every read that starts after it on another, both open, 200 times", async () => {
      const a = await open();
      await a.seedIfEmpty(PETS);
      const b = await open();
      for (let round = 0; round < 200; round++) {
        const [writer, reader] = round % 2 === 0 ? [a, b] : [b, a];
        const before = await reader.revision();
        // Both have read before the write, as a server with a cached inventory has.
        await reader.listInventory();
        expect(await writer.updateQuantity(1n, round)).toMatchObject({ kind: "updated" });
        expect(await reader.revision()).not.toBe(before);
        expect((await reader.listInventory()).items[0]?.quantity).toBe(round);
        expect((await reader.getInventoryItem(1n))?.item.quantity).toBe(round);
        expect((await reader.listChanges(1n, 1))?.[0]?.quantity).toBe(round);
      }
    });

    it("answers concurrent updates each with its own row, and keeps the last", async () => {
      const store = await open();
      await store.seedIfEmpty(PETS);
      const results = await Promise.all([
        store.updateQuantity(1n, 10),
        store.updateQuantity(2n, 20),
        store.updateQuantity(404n, 30),
        store.updateQuantity(1n, 11),
      ]);
      // The seed's three records are seqs 1 to 3; each write answers as of its own change.
      expect(results).toEqual([
        { kind: "updated", item: { petId: 1n, quantity: 10, status: "available" }, seq: 4n },
        { kind: "updated", item: { petId: 2n, quantity: 20, status: "sold" }, seq: 5n },
        { kind: "not_found" },
        { kind: "updated", item: { petId: 1n, quantity: 11, status: "available" }, seq: 6n },
      ]);
      await close(store);
      const reopened = await open();
      expect((await reopened.listInventory()).items.map((item) => item.quantity)).toEqual([
        11, 20, 5,
      ]);
    });

    it("refuses an out-of-range quantity itself, failing only that update", async () => {
      const store = await open();
      await store.seedIfEmpty(PETS);
      const [good, negative, tooLarge] = await Promise.allSettled([
        store.updateQuantity(1n, 5),
        store.updateQuantity(2n, -1),
        store.updateQuantity(2n, 2_147_483_648),
      ]);
      expect(good).toEqual({
        status: "fulfilled",
        value: { kind: "updated", item: { petId: 1n, quantity: 5, status: "available" }, seq: 4n },
      });
      expect(negative.status).toBe("rejected");
      expect(tooLarge.status).toBe("rejected");
      expect((await store.listInventory()).items.map((item) => item.quantity)).toEqual([5, 0, 5]);
    });

    it("commits updates still pending when it closes", async () => {
      const store = await open();
      await store.seedIfEmpty(PETS);
      const pending = store.updateQuantity(1n, 77);
      await close(store);
      expect(await pending).toEqual({
        kind: "updated",
        item: { petId: 1n, quantity: 77, status: "available" },
        seq: ANY_SEQ,
      });
      const reopened = await open();
      expect((await reopened.listInventory()).items[0]?.quantity).toBe(77);
    });

    describe("reading one entry", () => {
      it("gives one entry, int64 exact, or undefined", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        expect((await store.getInventoryItem(9223372036854775807n))?.item).toEqual({
          petId: 9223372036854775807n,
          quantity: 5,
          status: "pending",
        });
        await store.updateQuantity(1n, 8);
        expect((await store.getInventoryItem(1n))?.item).toEqual({
          petId: 1n,
          quantity: 8,
          status: "available",
        });
        expect(await store.getInventoryItem(404n)).toBeUndefined();
      });
    });

    describe("conditional updates", () => {
      it("writes when the quantity is one the condition names, else answers the current entry", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        expect(
          await store.updateQuantity(1n, 4, {
            condition: { kind: "quantity_in", quantities: [3] },
          }),
        ).toEqual({
          kind: "updated",
          item: { petId: 1n, quantity: 4, status: "available" },
          seq: 4n,
        });
        const revision = await store.revision();
        expect(
          await store.updateQuantity(1n, 9, {
            condition: { kind: "quantity_in", quantities: [3, 5] },
          }),
        ).toEqual({
          kind: "precondition_failed",
          current: { petId: 1n, quantity: 4, status: "available" },
          // As of the last change it reflects: the one before it.
          seq: 4n,
        });
        expect(
          await store.updateQuantity(1n, 9, { condition: { kind: "quantity_in", quantities: [] } }),
        ).toMatchObject({ kind: "precondition_failed" });
        expect(await store.revision()).toBe(revision);
        expect((await store.getInventoryItem(1n))?.item.quantity).toBe(4);
        expect(
          await store.updateQuantity(1n, 6, {
            condition: { kind: "quantity_in", quantities: [9, 4] },
          }),
        ).toMatchObject({ kind: "updated", item: { quantity: 6 }, seq: ANY_SEQ });
      });

      it("`exists` matches any entry; an unknown pet is not_found whatever the condition", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        expect(await store.updateQuantity(2n, 1, { condition: { kind: "exists" } })).toEqual({
          kind: "updated",
          item: { petId: 2n, quantity: 1, status: "sold" },
          seq: 4n,
        });
        expect(await store.updateQuantity(404n, 1, { condition: { kind: "exists" } })).toEqual({
          kind: "not_found",
        });
        expect(
          await store.updateQuantity(404n, 1, {
            condition: { kind: "quantity_in", quantities: [0] },
          }),
        ).toEqual({ kind: "not_found" });
      });

      it("lets only the first of writes conditional on one quantity pass, in one batch", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const onThree = { condition: { kind: "quantity_in", quantities: [3] } } as const;
        const results = await Promise.all([
          store.updateQuantity(1n, 10, onThree),
          store.updateQuantity(1n, 11, onThree),
          store.updateQuantity(1n, 12, { condition: { kind: "quantity_in", quantities: [10] } }),
          store.updateQuantity(1n, 13, onThree),
        ]);
        expect(results).toEqual([
          { kind: "updated", item: { petId: 1n, quantity: 10, status: "available" }, seq: 4n },
          {
            kind: "precondition_failed",
            current: { petId: 1n, quantity: 10, status: "available" },
            seq: 4n,
          },
          { kind: "updated", item: { petId: 1n, quantity: 12, status: "available" }, seq: 5n },
          {
            kind: "precondition_failed",
            current: { petId: 1n, quantity: 12, status: "available" },
            seq: 5n,
          },
        ]);
        expect((await store.getInventoryItem(1n))?.item.quantity).toBe(12);
      });

      it("lets only one of two connections' writes conditional on one quantity pass", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const other = await open();
        const onThree = { condition: { kind: "quantity_in", quantities: [3] } } as const;
        const results = await Promise.all([
          store.updateQuantity(1n, 20, onThree),
          other.updateQuantity(1n, 21, onThree),
        ]);
        expect(results.map((result) => result.kind).sort()).toEqual([
          "precondition_failed",
          "updated",
        ]);
        const winner = results.find((result) => result.kind === "updated");
        expect((await store.getInventoryItem(1n))?.item.quantity).toBe(
          winner?.kind === "updated" ? winner.item.quantity : -1,
        );
      });
    });

    describe("idempotency keys", () => {
      it("keeps the outcome with the write and replays it, writing nothing, even after other changes", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const first = await store.updateQuantity(1n, 7, claim("k1", "f1"));
        expect(first).toEqual({
          kind: "updated",
          item: { petId: 1n, quantity: 7, status: "available" },
          seq: ANY_SEQ,
        });
        await store.updateQuantity(1n, 8);
        const revision = await store.revision();
        // The answer as first given, with the seq it held as of (not the 8 written since).
        expect(await store.updateQuantity(1n, 7, claim("k1", "f1"))).toEqual({
          kind: "replayed",
          response: { status: 200, body: "q=7", etag: '"7"' },
          seq: first.kind === "updated" ? first.seq : "none",
        });
        expect(await store.revision()).toBe(revision);
        expect((await store.getInventoryItem(1n))?.item.quantity).toBe(8);
      });

      it("refuses the same key for a different request, writing nothing", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        await store.updateQuantity(1n, 7, claim("k1", "f1"));
        expect(await store.updateQuantity(1n, 9, claim("k1", "f2"))).toEqual({
          kind: "key_reused",
        });
        expect((await store.getInventoryItem(1n))?.item.quantity).toBe(7);
      });

      it("keeps keys apart per owner", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        await store.updateQuantity(1n, 7, claim("k1", "f1"));
        expect(await store.updateQuantity(1n, 9, claim("k1", "f2", { owner: "bob" }))).toEqual({
          kind: "updated",
          item: { petId: 1n, quantity: 9, status: "available" },
          seq: ANY_SEQ,
        });
      });

      it("keeps 404 and 412 outcomes too, and replays them", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        expect(await store.updateQuantity(404n, 1, claim("a", "fa"))).toEqual({
          kind: "not_found",
        });
        const onZero = { condition: { kind: "quantity_in", quantities: [0] } } as const;
        const failed = await store.updateQuantity(1n, 1, { ...onZero, ...claim("b", "fb") });
        expect(failed).toEqual({
          kind: "precondition_failed",
          current: { petId: 1n, quantity: 3, status: "available" },
          seq: ANY_SEQ,
        });
        await store.updateQuantity(1n, 0);
        expect(await store.updateQuantity(404n, 1, claim("a", "fa"))).toEqual({
          kind: "replayed",
          response: { status: 404, body: "none", etag: null },
          seq: ANY_SEQ,
        });
        // The entry holds 0 now, yet the replay is the stored 412 and nothing is written.
        expect(await store.updateQuantity(1n, 1, { ...onZero, ...claim("b", "fb") })).toEqual({
          kind: "replayed",
          response: { status: 412, body: "now=3", etag: '"3"' },
          seq: failed.kind === "precondition_failed" ? failed.seq : "none",
        });
        expect((await store.getInventoryItem(1n))?.item.quantity).toBe(0);
      });

      it("applies one of two writes with one new key in a batch, and replays it to the other", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const results = await Promise.all([
          store.updateQuantity(1n, 30, claim("same", "f")),
          store.updateQuantity(2n, 5),
          store.updateQuantity(1n, 30, claim("same", "f")),
          store.updateQuantity(1n, 31, claim("same", "other")),
        ]);
        const seq = results[0].kind === "updated" ? results[0].seq : "none";
        // The replay holds as of the keyed write, not of the write after it in the group.
        expect(results).toEqual([
          { kind: "updated", item: { petId: 1n, quantity: 30, status: "available" }, seq },
          { kind: "updated", item: { petId: 2n, quantity: 5, status: "sold" }, seq: ANY_SEQ },
          { kind: "replayed", response: { status: 200, body: "q=30", etag: '"30"' }, seq },
          { kind: "key_reused" },
        ]);
        const seqs = results.map((result) => (result.kind === "updated" ? result.seq : undefined));
        expect((seqs[1] ?? 0n) > (seqs[0] ?? 0n)).toBe(true);
        // Kept with the same seq: a replay after the group says it too.
        expect(await store.updateQuantity(1n, 30, claim("same", "f"))).toEqual(results[2]);
      });

      it("applies one of two connections' writes with one new key, and replays it to the other", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const other = await open();
        const results = await Promise.all([
          store.updateQuantity(1n, 40, claim("k", "f")),
          other.updateQuantity(1n, 40, claim("k", "f")),
        ]);
        expect(results.map((result) => result.kind).sort()).toEqual(["replayed", "updated"]);
        const updated = results.find((result) => result.kind === "updated");
        expect(results).toContainEqual({
          kind: "replayed",
          response: { status: 200, body: "q=40", etag: '"40"' },
          seq: updated?.kind === "updated" ? updated.seq : "none",
        });
      });

      it("keeps records across a reopen", async () => {
        const first = await open();
        await first.seedIfEmpty(PETS);
        await first.updateQuantity(1n, 50, claim("k", "f"));
        await close(first);
        const second = await open();
        expect(await second.updateQuantity(1n, 50, claim("k", "f"))).toMatchObject({
          kind: "replayed",
          response: { status: 200, body: "q=50" },
        });
      });

      it("forgets a record once it is older than the TTL, and purges expired ones in batches", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        await store.updateQuantity(1n, 60, claim("old1", "f"));
        await store.updateQuantity(1n, 61, claim("old2", "f", { at: T0 + 1 }));
        await store.updateQuantity(1n, 62, claim("young", "f", { at: T0 + 10 }));
        const expiry = T0 + 1 + IDEMPOTENCY_TTL_MS;
        // Just before the TTL has passed it is still a replay; at the TTL a new request.
        expect(await store.updateQuantity(1n, 99, claim("old2", "g", { at: expiry - 1 }))).toEqual({
          kind: "key_reused",
        });
        expect(await store.updateQuantity(1n, 63, claim("old1", "g", { at: expiry }))).toEqual({
          kind: "updated",
          item: { petId: 1n, quantity: 63, status: "available" },
          seq: ANY_SEQ,
        });
        // old1 now has a new record (at `expiry`); old2 remains expired, young does not.
        expect(await store.purgeIdempotencyRecords(T0 + 10, 1)).toBe(1);
        expect(await store.purgeIdempotencyRecords(T0 + 10, 1)).toBe(0);
        expect(await store.updateQuantity(1n, 64, claim("old2", "h", { at: T0 + 2 }))).toEqual({
          kind: "updated",
          item: { petId: 1n, quantity: 64, status: "available" },
          seq: ANY_SEQ,
        });
        expect(await store.updateQuantity(1n, 62, claim("young", "f", { at: T0 + 11 }))).toEqual({
          kind: "replayed",
          response: { status: 200, body: "q=62", etag: '"62"' },
          seq: ANY_SEQ,
        });
        expect(await store.updateQuantity(1n, 63, claim("old1", "g", { at: expiry }))).toEqual({
          kind: "replayed",
          response: { status: 200, body: "q=63", etag: '"63"' },
          seq: ANY_SEQ,
        });
      });
    });

    describe("history", () => {
      const author = (at: number, keyName: string, reason: string | null = null) => ({
        author: { at, keyName, requestId: `req-${at}`, reason },
      });

      it("keeps a seed's record and every write's, newest first, with who, when and why", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS, [], { at: T0, reason: "seed pets.json" });
        await store.updateQuantity(1n, 7, author(T0 + 1, "till-1", "sale"));
        await store.updateQuantity(9223372036854775807n, 6, author(T0 + 2, "cron"));
        await store.updateQuantity(1n, 7, author(T0 + 3, "till-2", "recount"));
        const records = (await store.listChanges(1n, 20)) ?? [];
        // Newest first: seqs decrease (the other pet's change came between).
        const seqs = records.map((record) => record.seq);
        expect(seqs).toEqual([...seqs].sort((a, b) => (a > b ? -1 : 1)));
        expect(seqs[0] ?? 0n).toBeGreaterThan((seqs[1] ?? 0n) + 1n);
        expect(records.map((record) => ({ ...record, seq: undefined }))).toEqual([
          {
            petId: 1n,
            at: T0 + 3,
            previous: 7,
            quantity: 7,
            keyName: "till-2",
            requestId: `req-${T0 + 3}`,
            reason: "recount",
            ref: null,
          },
          {
            petId: 1n,
            at: T0 + 1,
            previous: 3,
            quantity: 7,
            keyName: "till-1",
            requestId: `req-${T0 + 1}`,
            reason: "sale",
            ref: null,
          },
          {
            petId: 1n,
            at: T0,
            previous: null,
            quantity: 3,
            keyName: null,
            requestId: null,
            reason: "seed pets.json",
            ref: null,
          },
        ]);
        expect(await store.listChanges(9223372036854775807n, 20)).toMatchObject([
          { petId: 9223372036854775807n, previous: 5, quantity: 6, keyName: "cron", reason: null },
          { petId: 9223372036854775807n, previous: null, quantity: 5 },
        ]);
      });

      it("gives at most `limit` records, undefined for an unknown pet", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS, [], { at: T0, reason: null });
        for (let i = 1; i <= 5; i++) await store.updateQuantity(2n, i, author(T0 + i, "k"));
        expect((await store.listChanges(2n, 2))?.map((record) => record.quantity)).toEqual([5, 4]);
        expect((await store.listChanges(2n, 1000))?.map((record) => record.quantity)).toEqual([
          5, 4, 3, 2, 1, 0,
        ]);
        expect(await store.listChanges(404n, 20)).toBeUndefined();
      });

      it("keeps no record for a 404, a 412, a replay or a reuse", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS, [], { at: T0, reason: null });
        const written = {
          ...claim("k", "f"),
          ...author(T0 + 1, "till"),
        };
        expect(await store.updateQuantity(1n, 9, written)).toMatchObject({ kind: "updated" });
        expect(await store.updateQuantity(1n, 9, written)).toMatchObject({ kind: "replayed" });
        expect(
          await store.updateQuantity(1n, 10, { ...claim("k", "g"), ...author(T0 + 2, "till") }),
        ).toEqual({ kind: "key_reused" });
        expect(
          await store.updateQuantity(1n, 11, {
            condition: { kind: "quantity_in", quantities: [3] },
            ...author(T0 + 3, "till"),
          }),
        ).toMatchObject({ kind: "precondition_failed" });
        expect(await store.updateQuantity(404n, 1, author(T0 + 4, "till"))).toEqual({
          kind: "not_found",
        });
        expect((await store.listChanges(1n, 20))?.map((record) => record.quantity)).toEqual([9, 3]);
      });

      it("keeps one record per write of a batch, in order, and none of a write that failed", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS, [], { at: T0, reason: null });
        const results = await Promise.allSettled([
          store.updateQuantity(1n, 4, author(T0 + 1, "a")),
          store.updateQuantity(1n, 5, author(T0 + 2, "b")),
          store.updateQuantity(1n, -1, author(T0 + 3, "bad")),
          store.updateQuantity(1n, 6, author(T0 + 4, "c")),
        ]);
        expect(results.map((result) => result.status)).toEqual([
          "fulfilled",
          "fulfilled",
          "rejected",
          "fulfilled",
        ]);
        expect(
          (await store.listChanges(1n, 20))?.map((record) => [record.previous, record.quantity]),
        ).toEqual([
          [5, 6],
          [4, 5],
          [3, 4],
          [null, 3],
        ]);
      });

      it("keeps the history across a reopen and shows another connection's changes", async () => {
        const first = await open();
        await first.seedIfEmpty(PETS, [], { at: T0, reason: null });
        const second = await open();
        await second.updateQuantity(1n, 8, author(T0 + 1, "second"));
        expect((await first.listChanges(1n, 1))?.[0]).toMatchObject({ keyName: "second" });
        await close(first);
        await close(second);
        const third = await open();
        expect((await third.listChanges(1n, 20))?.map((record) => record.quantity)).toEqual([8, 3]);
      });
    });
    describe("batches", () => {
      const outcomes = (result: BatchResult) =>
        result.kind === "evaluated" ? result.results.map((change) => change.outcome) : result.kind;

      it("applies a batch with a PATCH in one group commit, in arrival order", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const [patched, batched, after] = await Promise.all([
          store.updateQuantity(1n, 10),
          store.applyBatch({
            atomic: false,
            dryRun: false,
            changes: [
              { petId: 1n, delta: -4, ifQuantity: 10 },
              { petId: 2n, quantity: 7, ref: "r" },
            ],
          }),
          store.updateQuantity(1n, 1, { condition: { kind: "quantity_in", quantities: [6] } }),
        ]);
        expect(patched).toMatchObject({ kind: "updated" });
        expect(outcomes(batched)).toEqual(["changed", "changed"]);
        expect(after).toMatchObject({
          kind: "updated",
          item: { quantity: 1 },
          seq: ANY_SEQ,
        });
        expect((await store.listChanges(2n, 1))?.[0]).toMatchObject({ quantity: 7, ref: "r" });
      });

      it("keeps refs for good, across stores and reopens: a (petId, ref) applies once", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const sale = {
          atomic: false,
          dryRun: false,
          changes: [{ petId: 1n, delta: -1, ref: "sale-1" }],
        };
        expect(outcomes(await store.applyBatch(sale))).toEqual(["changed"]);
        const other = await open();
        expect(outcomes(await other.applyBatch(sale))).toEqual(["duplicate"]);
        await close(store);
        const reopened = await open();
        expect(outcomes(await reopened.applyBatch(sale))).toEqual(["duplicate"]);
        expect((await reopened.getInventoryItem(1n))?.item.quantity).toBe(2);
      });

      it("applies the same refs sent through two stores at once exactly once", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const other = await open();
        const sales = {
          atomic: false,
          dryRun: false,
          changes: Array.from({ length: 3 }, (_, i) => ({
            petId: 9223372036854775807n,
            delta: -1,
            ref: `sale-${i}`,
          })),
        };
        const results = await Promise.all([store.applyBatch(sales), other.applyBatch(sales)]);
        expect(results.flatMap(outcomes).sort()).toEqual([
          "changed",
          "changed",
          "changed",
          "duplicate",
          "duplicate",
          "duplicate",
        ]);
        expect((await store.getInventoryItem(9223372036854775807n))?.item.quantity).toBe(2);
        expect(await store.listChanges(9223372036854775807n, 20)).toHaveLength(4);
      });

      describe("refs sharing a prefix (a store may probe the prefix once for them all)", () => {
        const sell = (petId: bigint, ref: string) => ({ petId, delta: -1, ref });
        /** The outcomes of `posted` on pets 1 to 3 (10 each), once `stored` was applied. */
        const outcomesAfter = async (stored: [bigint, string][], posted: [bigint, string][]) => {
          const store = await open();
          await store.seedIfEmpty(petsWithIds([1n, 2n, 3n]));
          const batch = (pairs: [bigint, string][]) =>
            store.applyBatch({
              atomic: false,
              dryRun: false,
              changes: pairs.map(([petId, ref]) => sell(petId, ref)),
            });
          if (stored.length > 0) expect(outcomes(await batch(stored))).not.toContain("duplicate");
          return outcomes(await batch(posted));
        };

        it("finds the one applied among new ones of its prefix", async () => {
          expect(
            await outcomesAfter(
              [[2n, "till-1/2026-11-26:2"]],
              [
                [1n, "till-1/2026-11-26:1"],
                [2n, "till-1/2026-11-26:2"],
                [3n, "till-1/2026-11-26:3"],
              ],
            ),
          ).toEqual(["changed", "duplicate", "changed"]);
        });

        it("applies refs whose prefix only other pets' refs start with", async () => {
          expect(
            await outcomesAfter(
              [[3n, "count:s1:1"]],
              [
                [1n, "count:s1:1"],
                [2n, "count:s1:2"],
              ],
            ),
          ).toEqual(["changed", "changed"]);
        });

        it("applies refs whose prefix no stored ref starts with, stored refs sorting around it", async () => {
          expect(
            await outcomesAfter(
              [
                [1n, "till-1/2026-11-25:1"],
                [2n, "till-1/2026-11-27:2"],
                [3n, "till-1/2026-11-2"],
              ],
              [
                [1n, "till-1/2026-11-26:1"],
                [2n, "till-1/2026-11-26:2"],
              ],
            ),
          ).toEqual(["changed", "changed"]);
        });

        it("finds an applied ref of its prefix with stored refs sorting just before and after", async () => {
          expect(
            await outcomesAfter(
              [
                [1n, "till-1/2026-11-25:1"],
                [2n, "till-1/2026-11-26:2"],
                [3n, "till-1/2026-11-27:3"],
              ],
              [
                [1n, "till-1/2026-11-26:1"],
                [2n, "till-1/2026-11-26:2"],
              ],
            ),
          ).toEqual(["changed", "duplicate"]);
        });

        it("finds applied refs that share no prefix with the others", async () => {
          expect(
            await outcomesAfter(
              [[1n, "b:1"]],
              [
                [1n, "a:1"],
                [1n, "b:1"],
              ],
            ),
          ).toEqual(["changed", "duplicate"]);
        });
      });

      it("writes nothing of an atomic batch with a failed change, and nothing of a dry run", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const changes = [
          { petId: 1n, delta: -1, ref: "x" },
          { petId: 2n, delta: -1 },
        ];
        const rejected = await store.applyBatch({ atomic: true, dryRun: false, changes });
        expect(rejected).toMatchObject({ kind: "evaluated", rejected: true });
        expect(outcomes(rejected)).toEqual(["changed", "below_zero"]);
        const dry = await store.applyBatch({ atomic: false, dryRun: true, changes });
        expect(dry).toMatchObject({ kind: "evaluated", rejected: false });
        expect(outcomes(dry)).toEqual(["changed", "below_zero"]);
        expect((await store.listInventory()).items).toEqual(SEEDED_INVENTORY);
        expect(await store.listChanges(1n, 20)).toHaveLength(1);
        // Neither kept the ref.
        const real = await store.applyBatch({ atomic: false, dryRun: false, changes });
        expect(outcomes(real)).toEqual(["changed", "below_zero"]);
      });

      it("keeps a batch's answer for its key, and no answer of a dry run", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const batchClaim = (key: string, fingerprint: string) => ({
          idempotency: {
            owner: "alice",
            key,
            fingerprint,
            at: T0,
            render: (evaluation: BatchEvaluation) => ({
              status: evaluation.rejected ? 409 : 200,
              body: outcomes(evaluation).toString(),
              etag: null,
            }),
          },
        });
        const changes = [{ petId: 1n, delta: 2 }];
        const dry = await store.applyBatch(
          { atomic: false, dryRun: true, changes },
          batchClaim("k", "dry"),
        );
        expect(dry.kind).toBe("evaluated");
        const first = await store.applyBatch(
          { atomic: false, dryRun: false, changes },
          batchClaim("k", "f"),
        );
        expect(first.kind).toBe("evaluated");
        const other = await open();
        expect(
          await other.applyBatch({ atomic: false, dryRun: false, changes }, batchClaim("k", "f")),
        ).toEqual({
          kind: "replayed",
          response: { status: 200, body: "changed", etag: null },
          seq: first.kind === "evaluated" ? first.seq : "none",
        });
        expect(
          await other.applyBatch({ atomic: false, dryRun: false, changes }, batchClaim("k", "g")),
        ).toEqual({ kind: "key_reused" });
        expect((await store.getInventoryItem(1n))?.item.quantity).toBe(5);
      });

      it("applies 10,000 changes of one batch in one transaction, with a history record each", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const changes = Array.from({ length: 10_000 }, (_, i) => ({
          petId: i % 2 === 0 ? 1n : 9223372036854775807n,
          delta: 1,
          ref: `r${i}`,
        }));
        const result = await store.applyBatch({ atomic: true, dryRun: false, changes });
        expect(result).toMatchObject({ kind: "evaluated", rejected: false });
        expect((await store.listInventory()).items).toEqual([
          { petId: 1n, quantity: 5003, status: "available" },
          { petId: 2n, quantity: 0, status: "sold" },
          { petId: 9223372036854775807n, quantity: 5005, status: "pending" },
        ]);
        expect(await store.listChanges(1n, 1000)).toHaveLength(1000);
      });
    });
    describe("the seq an answer holds as of, and counts", () => {
      const count = (petId: bigint, counted: number, asOf: bigint, ref?: string) =>
        ref === undefined ? { petId, count: counted, asOf } : { petId, count: counted, asOf, ref };

      it("reads the inventory and one entry with the seq of the last change they reflect", async () => {
        const store = await open();
        expect(await store.listInventory()).toEqual({ items: [], seq: 0n });
        await store.seedIfEmpty(PETS);
        expect(await store.listInventory()).toEqual({ items: SEEDED_INVENTORY, seq: 3n });
        await store.updateQuantity(2n, 4);
        expect(await store.getInventoryItem(1n)).toEqual({ item: SEEDED_INVENTORY[0], seq: 4n });
        expect((await store.listInventory()).seq).toBe(4n);
      });

      it("sets a count plus every change committed after its seq, and says what it reconciled", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        // The shelf of pet 1 is counted as of seq 3 (it held 3); a sale and a delivery follow.
        await store.applyBatch({
          atomic: false,
          dryRun: false,
          changes: [
            { petId: 1n, delta: -1 },
            { petId: 1n, delta: 5 },
          ],
        });
        const result = await store.applyBatch({
          atomic: true,
          dryRun: false,
          changes: [count(1n, 2, 3n, "count:s:1")],
        });
        expect(result).toEqual({
          kind: "evaluated",
          rejected: false,
          results: [
            {
              petId: 1n,
              outcome: "changed",
              previous: 7,
              quantity: 6,
              status: "available",
              book: 3,
              since: 4,
              counted: 2,
              variance: -1,
            },
          ],
          seq: 6n,
        });
        // Posted again: its ref was applied, nothing changes.
        const again = await store.applyBatch({
          atomic: true,
          dryRun: false,
          changes: [count(1n, 2, 3n, "count:s:1")],
        });
        expect(again).toMatchObject({ results: [{ outcome: "duplicate", quantity: 6 }], seq: 6n });
        expect((await store.getInventoryItem(1n))?.item.quantity).toBe(6);
      });

      it("counts a count's own group and batch: changes before it in either are after its seq", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const [sale, counted] = await Promise.all([
          store.updateQuantity(1n, 2),
          store.applyBatch({
            atomic: false,
            dryRun: false,
            changes: [{ petId: 1n, delta: -1 }, count(1n, 3, 3n)],
          }),
        ]);
        expect(sale).toMatchObject({ kind: "updated", seq: 4n });
        // 3 counted as of seq 3; since then 3 → 2 (the PATCH, seq 4) and −1 (the batch's first
        // change, seq 5): 3 − 2 is what the entry holds, so the count changes nothing.
        expect(counted).toMatchObject({
          results: [
            { outcome: "changed", quantity: 1 },
            { outcome: "unchanged", book: 3, since: -2, counted: 3, variance: 0, quantity: 1 },
          ],
          seq: 5n,
        });
      });

      it("is unchanged when nothing moved and it equals the book; fails below 0 and above the maximum", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        await store.updateQuantity(2n, 1);
        const result = await store.applyBatch({
          atomic: false,
          dryRun: false,
          changes: [count(1n, 3, 3n), count(2n, 0, 3n), count(2n, 0, 4n), count(404n, 1, 3n)],
        });
        expect(result).toMatchObject({
          results: [
            { outcome: "unchanged", book: 3, since: 0, variance: 0 },
            // Sold out when counted (0, as the book), 1 received since: it holds 1, unchanged.
            { outcome: "unchanged", book: 0, since: 1, variance: 0, quantity: 1 },
            // Counted 0 after the delivery (as of seq 4): the 1 is not there, so 0.
            { outcome: "changed", book: 1, since: 0, variance: -1, quantity: 0 },
            { outcome: "not_found", book: null, counted: 1 },
          ],
        });
        await store.updateQuantity(1n, 0);
        // Counted 1 as of seq 3 (it held 3), then set to 0: 1 − 3 is below 0.
        const below = await store.applyBatch({
          atomic: true,
          dryRun: false,
          changes: [count(1n, 1, 3n), count(9223372036854775807n, 2_147_483_647, 3n)],
        });
        expect(below).toMatchObject({
          rejected: true,
          results: [{ outcome: "below_zero", book: 3, since: -3 }, { outcome: "changed" }],
        });
        await store.updateQuantity(9223372036854775807n, 10);
        expect(
          await store.applyBatch({
            atomic: false,
            dryRun: true,
            changes: [count(9223372036854775807n, 2_147_483_647, 3n)],
          }),
        ).toMatchObject({ results: [{ outcome: "too_large", since: 5 }] });
      });

      it("refuses a count as of a seq no change has yet, writing nothing", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        expect(
          await store.applyBatch({
            atomic: false,
            dryRun: false,
            changes: [{ petId: 2n, delta: 1 }, count(1n, 1, 4n)],
          }),
        ).toEqual({
          kind: "refused",
          problem:
            "changes[1].asOf 4 is after the latest change (seq 3): a count is as of a seq a read of the inventory gave (Inventory-Seq)",
        });
        expect(await store.listInventory()).toEqual({ items: SEEDED_INVENTORY, seq: 3n });
      });
    });

    describe("the change feed", () => {
      it("lists every history record once, in seq order, paged by after and limit", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS, [], { at: T0, reason: "seed" });
        await store.updateQuantity(1n, 7);
        await store.applyBatch({
          atomic: false,
          dryRun: false,
          changes: [
            { petId: 2n, delta: 4, ref: "r" },
            { petId: 1n, delta: -1 },
            { petId: 404n, delta: 1 },
          ],
        });
        const all = await store.listFeed(0n, 1000);
        expect(all.map((record) => [record.petId, record.previous, record.quantity])).toEqual([
          [1n, null, 3],
          [2n, null, 0],
          [9223372036854775807n, null, 5],
          [1n, 3, 7],
          [2n, 0, 4],
          [1n, 7, 6],
        ]);
        expect(all[4]).toMatchObject({ ref: "r" });
        const seqs = all.map((record) => record.seq);
        for (const [index, seq] of seqs.entries()) {
          if (index > 0) expect(seq).toBeGreaterThan(seqs[index - 1] ?? 0n);
        }
        expect(seqs[0]).toBeGreaterThan(0n);
        // Pages: after the last seq seen, at most limit records.
        const first = await store.listFeed(0n, 4);
        const rest = await store.listFeed(first.at(-1)?.seq ?? 0n, 4);
        expect([...first, ...rest]).toEqual(all);
        expect(await store.listFeed(seqs.at(-1) ?? 0n, 10)).toEqual([]);
        // The latest seq is the last record's: a cursor above it is not this store's.
        expect(await store.latestSeq()).toBe(seqs.at(-1));
        // The history shows the same seqs.
        expect((await store.listChanges(1n, 20))?.map((record) => record.seq)).toEqual(
          all
            .filter((record) => record.petId === 1n)
            .map((record) => record.seq)
            .reverse(),
        );
      });

      it("gives a reader following the feed through one store every write made through two, once", async () => {
        const store = await open();
        await store.seedIfEmpty(PETS);
        const other = await open();
        let cursor = (await store.listFeed(0n, 1000)).at(-1)?.seq ?? 0n;
        const seen: bigint[] = [];
        const writes: Promise<unknown>[] = [];
        for (let round = 0; round < 20; round++) {
          writes.push(store.updateQuantity(1n, round));
          writes.push(other.updateQuantity(2n, round + 100));
          writes.push(
            other.applyBatch({ atomic: false, dryRun: false, changes: [{ petId: 1n, delta: 1 }] }),
          );
          const page = await store.listFeed(cursor, 1000);
          seen.push(...page.map((record) => record.seq));
          cursor = page.at(-1)?.seq ?? cursor;
        }
        await Promise.all(writes);
        const page = await store.listFeed(cursor, 1000);
        seen.push(...page.map((record) => record.seq));
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toHaveLength(60);
        const all = await other.listFeed(0n, 1000);
        expect(all.slice(3).map((record) => record.seq)).toEqual(seen);
      });
    });
  });
}
