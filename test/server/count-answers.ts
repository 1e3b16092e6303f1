/**
 * `Inventory-Seq` and count changes through app.inject(), the same cases on every engine: a
 * store's test file (counts.test.ts on SQLite, counts-postgres.test.ts on PostgreSQL) calls
 * `describeCountAnswers` with how to open a store. The store is seeded with the fixture's
 * PETS, whose records are seqs 1 to 3: pet 1 holds 3, pet 2 0 (sold), pet MAX_ID 5.
 */
import type { LightMyRequestResponse } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../src/server/store/store.js";
import { expectError } from "./expect-error.js";
import { AUTH, MAX_ID, PETS, createTestApp, type TestApp } from "./fixture.js";

/** A store for one test, seeded by the suite, and how to remove what it leaves. */
export interface CountStore {
  store: Store;
  cleanup(): Promise<void>;
}

const NOW = Date.UTC(2026, 10, 27, 9, 0, 0);

interface Result {
  petId: number;
  outcome: string;
  previous: number | null;
  quantity: number | null;
  status: string | null;
  book?: number | null;
  since?: number | null;
  counted?: number;
  variance?: number | null;
}

interface HistoryRecord {
  seq: number;
  previous: number | null;
  quantity: number;
  ref: string | null;
  reason: string | null;
}

/** Declares the app.inject() cases of Inventory-Seq and counts on one engine. */
export function describeCountAnswers(engine: string, open: () => Promise<CountStore>): void {
  describe(`${engine}: Inventory-Seq and count changes through the HTTP API`, () => {
    let t: TestApp;
    let opened: CountStore;
    beforeEach(async () => {
      opened = await open();
      await opened.store.seedIfEmpty(PETS);
      t = await createTestApp({ store: opened.store, clock: () => NOW });
    });
    afterEach(async () => {
      await t.close();
      await opened.cleanup();
    });

    const get = (url: string) => t.app.inject({ url, headers: AUTH });
    const patch = (petId: string, quantity: number, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: "PATCH",
        url: `/v1/inventory/${petId}`,
        headers: { ...AUTH, "content-type": "application/json", ...headers },
        payload: JSON.stringify({ quantity }),
      });
    const batch = (
      body: unknown,
      headers: Record<string, string> = {},
    ): Promise<LightMyRequestResponse> =>
      t.app.inject({
        method: "POST",
        url: "/v1/inventory/batch",
        headers: { ...AUTH, "content-type": "application/json", ...headers },
        payload: typeof body === "string" ? body : JSON.stringify(body),
      });
    const seqOf = (response: LightMyRequestResponse) => response.headers["inventory-seq"];
    const inventory = async () => (await get("/v1/inventory")).body;
    const latest = async () => seqOf(await get("/v1/inventory"));
    const historyOf = async (petId: string) =>
      (await get(`/v1/inventory/${petId}/history?limit=1000`)).json<HistoryRecord[]>();
    const results = (response: LightMyRequestResponse) =>
      response.json<{ results: Result[] }>().results;
    /** Everything a write could change: every entry, every pet's history, the latest seq. */
    const everything = async () => ({
      inventory: await inventory(),
      seq: await latest(),
      histories: [await historyOf("1"), await historyOf("2"), await historyOf(MAX_ID)],
    });

    it("says on every inventory answer the seq of the last change it reflects", async () => {
      const list = await get("/v1/inventory");
      expect([list.statusCode, seqOf(list)]).toEqual([200, "3"]);
      expect(seqOf(await get("/v1/inventory/1"))).toBe("3");
      // A write: its own change's seq; a later read holds as of it.
      const written = await patch("1", 4);
      expect([written.statusCode, seqOf(written), written.headers.etag]).toEqual([200, "4", '"4"']);
      expect(seqOf(await get(`/v1/inventory/${MAX_ID}`))).toBe("4");
      // A 412 changes nothing: the latest seq, which its current entry reflects.
      const conflict = await patch("1", 9, { "if-match": '"3"' });
      expect([conflict.statusCode, seqOf(conflict)]).toEqual([412, "4"]);
      const batched = await batch({
        changes: [
          { petId: 2, delta: 1 },
          { petId: 1, delta: -1 },
        ],
      });
      expect([batched.statusCode, seqOf(batched)]).toEqual([200, "6"]);
      // Batches that change nothing: a dry run, one of unchanged rows, a rejected atomic one.
      const dry = await batch({ dryRun: true, changes: [{ petId: 1, delta: -1 }] });
      expect([dry.statusCode, seqOf(dry)]).toEqual([200, "6"]);
      const same = await batch({ changes: [{ petId: 1, quantity: 3 }] });
      expect([same.json<{ unchanged: number }>().unchanged, seqOf(same)]).toEqual([1, "6"]);
      const rejected = await batch({
        atomic: true,
        changes: [
          { petId: 1, delta: 1 },
          { petId: 404, delta: 1 },
        ],
      });
      expect([rejected.statusCode, seqOf(rejected)]).toEqual([409, "6"]);
      expect(await latest()).toBe("6");
      // No entry, no body to hold: no seq.
      expect(seqOf(await patch("404", 1))).toBeUndefined();
      expect(seqOf(await get("/v1/inventory/404"))).toBeUndefined();
      expect(seqOf(await batch({ changes: [{ petId: 1, delta: 0 }] }))).toBeUndefined();
    });

    it("sets a count plus what moved after its asOf (a PATCH's set and a batch's delta), and says what it reconciled", async () => {
      const read = await get("/v1/inventory/1");
      expect([read.json<{ quantity: number }>().quantity, seqOf(read)]).toEqual([3, "3"]);
      // After the shelf was counted: a PATCH to 10 (+7), a sale of 2.
      await patch("1", 10);
      await batch({ changes: [{ petId: 1, delta: -2, ref: "till:1" }] });
      const counted = await batch(
        { atomic: true, changes: [{ petId: 1, count: 4, asOf: 3, ref: "count:s-1:1" }] },
        { "x-change-reason": "stocktake s-1" },
      );
      expect(counted.statusCode).toBe(200);
      expect(seqOf(counted)).toBe("6");
      expect(counted.body).toBe(
        '{"changed":1,"unchanged":0,"failed":0,"results":[' +
          '{"petId":1,"outcome":"changed","previous":8,"quantity":9,"status":"available",' +
          '"book":3,"since":5,"counted":4,"variance":1}]}',
      );
      expect((await historyOf("1"))[0]).toEqual(
        expect.objectContaining({
          seq: 6,
          previous: 8,
          quantity: 9,
          ref: "count:s-1:1",
          reason: "stocktake s-1",
        }),
      );
      // The feed shows the count as a change like any other, after the sale.
      const feed = (await get("/v1/inventory/changes?after=5")).json<{
        changes: HistoryRecord[];
      }>();
      expect(feed.changes.map((change) => [change.seq, change.previous, change.quantity])).toEqual([
        [6, 8, 9],
      ]);
    });

    it("counts a seed after asOf as moved in from nothing: as of seq 0 the book is 0", async () => {
      const counted = await batch({
        changes: [
          { petId: 1, count: 2, asOf: 0 },
          { petId: 2, count: 1, asOf: 1 },
        ],
      });
      expect(results(counted)).toEqual([
        // Seeded with 3 at seq 1: counted 2 before it, so 5.
        expect.objectContaining({ outcome: "changed", book: 0, since: 3, counted: 2, quantity: 5 }),
        // Pet 2 was seeded (with 0) at seq 2, after seq 1.
        expect.objectContaining({ outcome: "changed", book: 0, since: 0, counted: 1, quantity: 1 }),
      ]);
    });

    it("is unchanged when nothing moved and the count is the book: no record, the latest seq", async () => {
      await patch("2", 4);
      const before = await everything();
      const response = await batch({
        changes: [
          { petId: 1, count: 3, asOf: 3 },
          { petId: 2, count: 4, asOf: 4 },
        ],
      });
      expect(response.statusCode).toBe(200);
      expect(seqOf(response)).toBe("4");
      expect(response.json()).toEqual({
        changed: 0,
        unchanged: 2,
        failed: 0,
        results: [
          {
            petId: 1,
            outcome: "unchanged",
            previous: 3,
            quantity: 3,
            status: "available",
            book: 3,
            since: 0,
            counted: 3,
            variance: 0,
          },
          {
            petId: 2,
            outcome: "unchanged",
            previous: 4,
            quantity: 4,
            status: "sold",
            book: 4,
            since: 0,
            counted: 4,
            variance: 0,
          },
        ],
      });
      expect(await everything()).toEqual(before);
    });

    it("fails a count below 0 or above the maximum alone; atomic, writes nothing at all", async () => {
      // After seq 3: pet 1 set to 0 (since −3), pet MAX_ID received 10 (since +10).
      await patch("1", 0);
      await batch(`{"changes":[{"petId":${MAX_ID},"delta":10}]}`);
      const changes = [
        { petId: 1, count: 1, asOf: 3 },
        { petId: MAX_ID, count: 2147483647, asOf: 3 },
        { petId: 2, count: 6, asOf: 3 },
      ];
      // MAX_ID is above 2^53: written in digits, not as JSON.stringify's string.
      const body = (atomic: boolean) =>
        JSON.stringify({ atomic, changes }).replace(`"${MAX_ID}"`, MAX_ID);
      const expected = [
        {
          petId: 1,
          outcome: "below_zero",
          previous: 0,
          quantity: 0,
          status: "available",
          book: 3,
          since: -3,
          counted: 1,
          variance: -2,
        },
        {
          petId: MAX_ID,
          outcome: "too_large",
          previous: 15,
          quantity: 15,
          status: "pending",
          book: 5,
          since: 10,
          counted: 2147483647,
          variance: 2147483642,
        },
        {
          petId: 2,
          outcome: "changed",
          previous: 0,
          quantity: 6,
          status: "sold",
          book: 0,
          since: 0,
          counted: 6,
          variance: 6,
        },
      ];
      const before = await everything();
      const rejected = await batch(body(true));
      expectRejected(rejected);
      expect(seqOf(rejected)).toBe("5");
      expect(parseResults(rejected.body)).toEqual(expected);
      expect(await everything()).toEqual(before);
      const applied = await batch(body(false));
      expect(applied.statusCode).toBe(200);
      expect(applied.json()).toMatchObject({ changed: 1, unchanged: 0, failed: 2 });
      expect(parseResults(applied.body)).toEqual(expected);
      expect(seqOf(applied)).toBe("6");
    });

    it("evaluates a dry run exactly and writes nothing: no record, no ref, no key kept", async () => {
      await batch({ changes: [{ petId: 1, delta: -1 }] });
      const body = { dryRun: true, changes: [{ petId: 1, count: 7, asOf: 3, ref: "count:d:1" }] };
      const before = await everything();
      const dry = await batch(body, { "idempotency-key": "dry-1" });
      expect(dry.statusCode).toBe(200);
      expect(seqOf(dry)).toBe("4");
      expect(results(dry)).toEqual([
        expect.objectContaining({ outcome: "changed", previous: 2, quantity: 6, since: -1 }),
      ]);
      expect(await everything()).toEqual(before);
      // The key kept nothing and the ref is free: the real count with them applies.
      const real = await batch({ ...body, dryRun: false }, { "idempotency-key": "dry-1" });
      expect(real.headers["idempotent-replayed"]).toBeUndefined();
      expect(real.body).toBe(dry.body);
      expect(seqOf(real)).toBe("5");
    });

    it("applies a count's ref once: posted again, or in the same batch, duplicate as any ref", async () => {
      const first = await batch({ changes: [{ petId: 1, count: 5, asOf: 3, ref: "count:r:1" }] });
      expect(results(first)[0]).toMatchObject({ outcome: "changed", quantity: 5 });
      await batch({ changes: [{ petId: 1, delta: -1 }] });
      const before = await everything();
      const again = await batch({
        changes: [
          // Another count, as of a later seq, with the same ref: the count was applied.
          { petId: 1, count: 9, asOf: 5, ref: "count:r:1" },
          { petId: 2, count: 2, asOf: 5, ref: "count:r:2" },
          { petId: 2, count: 3, asOf: 5, ref: "count:r:2" },
          // A sale's ref on another pet is another pair: a count may not reuse it on pet 1.
          { petId: 1, delta: -1, ref: "sale:9" },
          { petId: 1, count: 1, asOf: 5, ref: "sale:9" },
        ],
      });
      expect(results(again)).toEqual([
        { petId: 1, outcome: "duplicate", previous: 4, quantity: 4, status: "available" },
        expect.objectContaining({ petId: 2, outcome: "changed", quantity: 2, book: 0 }),
        { petId: 2, outcome: "duplicate", previous: 2, quantity: 2, status: "sold" },
        expect.objectContaining({ petId: 1, outcome: "changed", quantity: 3 }),
        { petId: 1, outcome: "duplicate", previous: 3, quantity: 3, status: "available" },
      ]);
      expect(again.json()).toMatchObject({ changed: 2, unchanged: 3, failed: 0 });
      // One record each of the two changed: the sale of pet 1 and the count of pet 2.
      expect((await historyOf("1")).length).toBe((before.histories[0]?.length ?? 0) + 1);
      expect((await historyOf("2")).length).toBe((before.histories[1]?.length ?? 0) + 1);
    });

    it("replays a count's answer to its Idempotency-Key, even after later changes; another count with it is 422", async () => {
      const body = { atomic: true, changes: [{ petId: 1, count: 6, asOf: 3 }] };
      const first = await batch(body, { "idempotency-key": "k-count" });
      expect([first.statusCode, seqOf(first)]).toEqual([200, "4"]);
      await patch("1", 1);
      const before = await everything();
      const replay = await batch(body, { "idempotency-key": "k-count" });
      expect(replay.statusCode).toBe(200);
      expect(replay.headers["idempotent-replayed"]).toBe("true");
      expect(replay.body).toBe(first.body);
      // The seq it was first given with (4), not the latest (5): the body holds as of 4.
      expect(seqOf(replay)).toBe("4");
      expect(await everything()).toEqual(before);
      const reused = await batch(
        { atomic: true, changes: [{ petId: 1, count: 6, asOf: 4 }] },
        { "idempotency-key": "k-count" },
      );
      expectError(reused, 422, "idempotency_key_reused");
      expect(await everything()).toEqual(before);
    });

    it("takes asOf up to the latest seq and refuses a later one, naming the latest", async () => {
      await batch({ changes: [{ petId: 2, delta: 2 }] });
      const atLatest = await batch({ changes: [{ petId: 2, count: 1, asOf: 4 }] });
      expect(results(atLatest)[0]).toMatchObject({ outcome: "changed", book: 2, since: 0 });
      const before = await everything();
      const refused = await batch({
        atomic: true,
        changes: [
          { petId: 1, delta: -1 },
          { petId: 2, count: 1, asOf: 6 },
        ],
      });
      expectError(refused, 400, "invalid_body");
      expect(refused.json<{ message: string }>().message).toBe(
        "changes[1].asOf 6 is after the latest change (seq 5): a count is as of a seq a read of the inventory gave (Inventory-Seq); nothing was changed",
      );
      expect(await everything()).toEqual(before);
    });

    it.each([
      [{ petId: 1, count: 1 }, /^changes\[0\]\.asOf is required with count/],
      [{ petId: 1, asOf: 1 }, /^changes\[0\] must have one of quantity .* not none/],
      [{ petId: 1, quantity: 1, asOf: 1 }, /^changes\[0\]\.asOf goes with count/],
      [{ petId: 1, delta: -1, asOf: 1 }, /^changes\[0\]\.asOf goes with count/],
      [{ petId: 1, count: 1, quantity: 1, asOf: 1 }, /not quantity and count/],
      [{ petId: 1, count: 1, delta: 1, asOf: 1 }, /not delta and count/],
      [{ petId: 1, count: 1, asOf: 1, ifQuantity: 3 }, /^changes\[0\]\.ifQuantity does not go/],
      [{ petId: 1, count: -1, asOf: 1 }, /^changes\[0\]\.count must be a whole number from 0/],
      [{ petId: 1, count: 2147483648, asOf: 1 }, /^changes\[0\]\.count must be a whole number/],
      [{ petId: 1, count: 1.5, asOf: 1 }, /^changes\[0\]\.count must be a whole number/],
      [{ petId: 1, count: "1", asOf: 1 }, /^changes\[0\]\.count must be a whole number/],
      [{ petId: 1, count: null, asOf: 1 }, /^changes\[0\]\.count must be a whole number/],
      [{ petId: 1, count: 1, asOf: -1 }, /^changes\[0\]\.asOf must be a whole number from 0/],
      [{ petId: 1, count: 1, asOf: 1.5 }, /^changes\[0\]\.asOf must be a whole number/],
      [{ petId: 1, count: 1, asOf: "1" }, /^changes\[0\]\.asOf must be a whole number/],
      [{ petId: 1, count: 1, asOf: null }, /^changes\[0\]\.asOf must be a whole number/],
      [{ petId: 1, count: 1, asOf: 1, ref: "two words" }, /^changes\[0\]\.ref must be 1 to 128/],
      [{ petId: 0, count: 1, asOf: 1 }, /^changes\[0\]\.petId must be a whole number from 1/],
    ])(
      "refuses the change %j: 400 invalid_body naming it, nothing changed",
      async (change, message) => {
        const before = await everything();
        const response = await batch({ changes: [change] });
        expectError(response, 400, "invalid_body");
        expect(response.json<{ message: string }>().message).toMatch(message);
        expect(response.json<{ message: string }>().message).toMatch(/; nothing was changed$/);
        expect(seqOf(response)).toBeUndefined();
        expect(await everything()).toEqual(before);
      },
    );

    it("refuses an asOf beyond int64, written in digits", async () => {
      const response = await batch(
        '{"changes":[{"petId":1,"count":1,"asOf":9223372036854775808}]}',
      );
      expectError(response, 400, "invalid_body");
      expect(response.json<{ message: string }>().message).toMatch(
        /^changes\[0\]\.asOf must be a whole number from 0 to 9223372036854775807/,
      );
    });
  });
}

/** A 409 batch_rejected: the Error body and the results. */
function expectRejected(response: LightMyRequestResponse): void {
  expect(response.statusCode).toBe(409);
  expect(response.json()).toMatchObject({ code: "batch_rejected", status: 409 });
}

/** The results of a batch answer, int64 petIds read exactly (as bigint when above 2^53). */
function parseResults(body: string): unknown[] {
  const exact = body.replaceAll(`"petId":${MAX_ID}`, `"petId":"${MAX_ID}"`);
  return (JSON.parse(exact) as { results: Record<string, unknown>[] }).results.map((result) =>
    result.petId === MAX_ID ? { ...result, petId: MAX_ID } : result,
  );
}
