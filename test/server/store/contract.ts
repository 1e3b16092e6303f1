/**
 * The store contract: what every Store promises the routes, proven the same way on every
 * store. A store's test file calls `describeStoreContract` with how to open it; checks that
 * only make sense for one engine (SQLite's WAL, say) stay in that store's own file.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Order } from "../../../src/api/types.js";
import type { Store } from "../../../src/server/store/store.js";
import { PETS } from "../fixture.js";

/** Opens stores for one test; every store it opens is closed by the suite. */
export interface StoreHarness {
  /**
   * Opens a connection to this test's database, empty at the test's start. Opening it again
   * gives another connection (or instance) on the same data, as a second server would have;
   * every connection sees the others' committed writes at once in `listInventory` and
   * `revision` (open it without any caching interval).
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
      expect(await store.listInventory()).toEqual([]);
      expect(await store.listOrders()).toEqual([]);
    });

    it("lists the inventory ordered by petId, int64 ids exact", async () => {
      const store = await open();
      await store.seedIfEmpty([...PETS].reverse());
      expect(await store.listInventory()).toEqual(SEEDED_INVENTORY);
    });

    it("keeps pets, orders and quantities across a reopen", async () => {
      const first = await open();
      await first.seedIfEmpty(PETS, ORDERS);
      expect(await first.updateQuantity(9223372036854775807n, 12)).toEqual({
        kind: "updated",
        item: { petId: 9223372036854775807n, quantity: 12, status: "pending" },
      });
      await close(first);
      const second = await open();
      expect(await second.listInventory()).toEqual([
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
      expect(await store.listInventory()).toEqual(SEEDED_INVENTORY);

      const other = await openOther();
      await expect(other.seedIfEmpty([pet, pet])).rejects.toThrow();
      expect(await other.listInventory()).toEqual([]);
    });

    it("answers not_found for an unknown pet and changes nothing", async () => {
      const store = await open();
      await store.seedIfEmpty(PETS);
      const revision = await store.revision();
      expect(await store.updateQuantity(404n, 1)).toEqual({ kind: "not_found" });
      expect(await store.getPet(404n)).toBeUndefined();
      expect(await store.revision()).toBe(revision);
      expect(await store.listInventory()).toEqual(SEEDED_INVENTORY);
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
      expect((await store.listInventory())[0]).toEqual({
        petId: 1n,
        quantity: 10,
        status: "available",
      });
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
      expect(results).toEqual([
        { kind: "updated", item: { petId: 1n, quantity: 10, status: "available" } },
        { kind: "updated", item: { petId: 2n, quantity: 20, status: "sold" } },
        { kind: "not_found" },
        { kind: "updated", item: { petId: 1n, quantity: 11, status: "available" } },
      ]);
      await close(store);
      const reopened = await open();
      expect((await reopened.listInventory()).map((item) => item.quantity)).toEqual([11, 20, 5]);
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
        value: { kind: "updated", item: { petId: 1n, quantity: 5, status: "available" } },
      });
      expect(negative.status).toBe("rejected");
      expect(tooLarge.status).toBe("rejected");
      expect((await store.listInventory()).map((item) => item.quantity)).toEqual([5, 0, 5]);
    });

    it("commits updates still pending when it closes", async () => {
      const store = await open();
      await store.seedIfEmpty(PETS);
      const pending = store.updateQuantity(1n, 77);
      await close(store);
      expect(await pending).toEqual({
        kind: "updated",
        item: { petId: 1n, quantity: 77, status: "available" },
      });
      const reopened = await open();
      expect((await reopened.listInventory())[0]?.quantity).toBe(77);
    });
  });
}
