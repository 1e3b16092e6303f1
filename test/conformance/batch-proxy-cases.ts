/**
 * POST /inventory/batch (applyInventoryBatch) through the proxies of server-proxy.test.ts, which
 * registers these cases: every status the document gives the operation, every outcome a
 * change can have, and the 405 of the other methods. The cases use the demo pets from the
 * fourth on (the earlier ones are the PATCH cases') and read their quantities first.
 */
import { describe, expect, it } from "vitest";
import { whileSqliteLocked } from "../support/sqlite-lock.js";
import {
  READ_KEY,
  conforming,
  describeViolations,
  forbidden,
  proxySuite,
  send,
  type Call,
} from "./server-proxy-harness.js";

const OPERATION = "applyInventoryBatch";
const PATH = "/inventory/batch";

interface Result {
  petId: number;
  outcome: string;
  previous: number | null;
  quantity: number | null;
  status: string | null;
}

interface BatchAnswer {
  changed: number;
  unchanged: number;
  failed: number;
  results: Result[];
}

interface HistoryRecord {
  quantity: number;
  reason: string | null;
  ref: string | null;
}

/** A batch request; `headers` go with it (Idempotency-Key, X-Change-Reason). */
const batch = (body: object, headers: Record<string, string> = {}): Call => ({
  method: "POST",
  path: PATH,
  body: JSON.stringify(body),
  headers,
});

/** The ids of two demo pets no other case writes. */
function pets(): [number, number] {
  const [, , , first, second] = proxySuite().petIds;
  if (first === undefined || second === undefined) throw new Error("the demo has too few pets");
  return [first, second];
}

async function entryOf(petId: number): Promise<{ quantity: number; status: string }> {
  const { body } = await send(proxySuite().strict, { path: `/inventory/${petId}` });
  return body as { quantity: number; status: string };
}

async function quantityOf(petId: number): Promise<number> {
  return (await entryOf(petId)).quantity;
}

async function historyOf(petId: number): Promise<HistoryRecord[]> {
  const { body } = await conforming(
    "getInventoryHistory",
    { path: `/inventory/${petId}/history?limit=1000` },
    200,
  );
  return body as HistoryRecord[];
}

/** Every entry and every pet's history, to show that a request changed nothing. */
async function everything(): Promise<unknown> {
  const { strict, petIds } = proxySuite();
  const inventory = (await send(strict, { path: "/inventory" })).body;
  const histories = await Promise.all(
    petIds.map(async (petId) => (await send(strict, { path: `/inventory/${petId}/history` })).body),
  );
  return { inventory, histories };
}

/** The day's sales of the 200 case, sent again by the duplicate case. */
const sales = (first: number, second: number) => ({
  changes: [
    { petId: second, delta: -1, ref: "conformance-sale/1" },
    { petId: second, delta: -1, ref: "conformance-sale/2" },
    { petId: first, delta: 2, ref: "conformance-delivery/1" },
  ],
});

/** Registers the batch cases; server-proxy.test.ts calls it once. */
export function describeBatchThroughProxy(): void {
  describe("POST /inventory/batch (applyInventoryBatch) through prism proxy", () => {
    it("200: sets with ifQuantity, in order: changed, unchanged, conflict", async () => {
      const [first, second] = pets();
      const [{ quantity: q1, status: s1 }, { quantity: q2, status: s2 }] = [
        await entryOf(first),
        await entryOf(second),
      ];
      const { body } = await conforming(
        OPERATION,
        batch({
          changes: [
            { petId: first, quantity: q1 + 5, ifQuantity: q1 },
            { petId: second, quantity: q2 },
            // Sees the first change: the entry no longer holds q1.
            { petId: first, quantity: 1, ifQuantity: q1 },
          ],
        }),
        200,
      );
      expect(body).toEqual({
        changed: 1,
        unchanged: 1,
        failed: 1,
        results: [
          { petId: first, outcome: "changed", previous: q1, quantity: q1 + 5, status: s1 },
          { petId: second, outcome: "unchanged", previous: q2, quantity: q2, status: s2 },
          { petId: first, outcome: "conflict", previous: q1 + 5, quantity: q1 + 5, status: s1 },
        ],
      });
      expect(await quantityOf(first)).toBe(q1 + 5);
    });

    it("200: deltas with refs and a reason, each kept in the history with its ref", async () => {
      const [first, second] = pets();
      const [q1, q2] = [await quantityOf(first), await quantityOf(second)];
      const { body } = await conforming(
        OPERATION,
        batch(sales(first, second), { "x-change-reason": "conformance sales" }),
        200,
      );
      expect(body).toMatchObject({ changed: 3, unchanged: 0, failed: 0 });
      expect((body as BatchAnswer).results.map((r) => [r.outcome, r.previous, r.quantity])).toEqual(
        [
          ["changed", q2, q2 - 1],
          ["changed", q2 - 1, q2 - 2],
          ["changed", q1, q1 + 2],
        ],
      );
      const history = await historyOf(second);
      expect(history.slice(0, 2)).toMatchObject([
        { quantity: q2 - 2, reason: "conformance sales", ref: "conformance-sale/2" },
        { quantity: q2 - 1, reason: "conformance sales", ref: "conformance-sale/1" },
      ]);
      // A record the batch did not make carries no ref.
      expect(history.at(-1)).toMatchObject({ reason: "demo data", ref: null });
    });

    it("200: the failures that leave the others applied: not_found, below_zero, too_large", async () => {
      const [first] = pets();
      const { unknownId } = proxySuite();
      const { quantity: q1, status } = await entryOf(first);
      // Above 0, so that adding the largest delta is too large.
      expect(q1).toBeGreaterThan(0);
      const { body } = await conforming(
        OPERATION,
        batch({
          changes: [
            { petId: unknownId, delta: 1 },
            { petId: first, delta: -(q1 + 1) },
            { petId: first, delta: 2147483647 },
            { petId: first, delta: -1 },
          ],
        }),
        200,
      );
      expect(body).toEqual({
        changed: 1,
        unchanged: 0,
        failed: 3,
        results: [
          { petId: unknownId, outcome: "not_found", previous: null, quantity: null, status: null },
          { petId: first, outcome: "below_zero", previous: q1, quantity: q1, status },
          { petId: first, outcome: "too_large", previous: q1, quantity: q1, status },
          { petId: first, outcome: "changed", previous: q1, quantity: q1 - 1, status },
        ],
      });
    });

    it("200: counts as of a read's Inventory-Seq keep what moved since; book, since, counted, variance", async () => {
      const [first, second] = pets();
      const { unknownId } = proxySuite();
      const read = await conforming("getInventoryItem", { path: `/inventory/${first}` }, 200);
      const { quantity: book, status } = read.body as { quantity: number; status: string };
      const asOf = Number(read.headers.get("inventory-seq"));
      expect(read.headers.get("inventory-seq")).toMatch(/^[1-9][0-9]*$/);
      // A sale after the shelf was counted.
      const sale = await conforming(
        OPERATION,
        batch({ changes: [{ petId: first, delta: -1, ref: "conformance-count-sale/1" }] }),
        200,
      );
      expect(Number(sale.headers.get("inventory-seq"))).toBeGreaterThan(asOf);
      const q2 = await quantityOf(second);
      const { body, headers } = await conforming(
        OPERATION,
        batch({
          changes: [
            { petId: first, count: book + 3, asOf, ref: "conformance-count/1" },
            // Counted as the book with nothing moved since: unchanged, no record.
            { petId: second, count: q2, asOf: Number(sale.headers.get("inventory-seq")) },
            { petId: unknownId, count: 1, asOf },
          ],
        }),
        200,
      );
      expect(body).toEqual({
        changed: 1,
        unchanged: 1,
        failed: 1,
        results: [
          {
            petId: first,
            outcome: "changed",
            previous: book - 1,
            quantity: book + 2,
            status,
            book,
            since: -1,
            counted: book + 3,
            variance: 3,
          },
          expect.objectContaining({ petId: second, outcome: "unchanged", since: 0, variance: 0 }),
          {
            petId: unknownId,
            outcome: "not_found",
            previous: null,
            quantity: null,
            status: null,
            book: null,
            since: null,
            counted: 1,
            variance: null,
          },
        ],
      });
      expect(Number(headers.get("inventory-seq"))).toBe(
        Number(sale.headers.get("inventory-seq")) + 1,
      );
      expect(await quantityOf(first)).toBe(book + 2);
    });

    it("400: a count as of a seq later than any change, naming the latest, nothing changed", async () => {
      const [first] = pets();
      const latest = Number(
        (await send(proxySuite().strict, { path: "/inventory" })).headers.get("inventory-seq"),
      );
      const before = await everything();
      const { body } = await conforming(
        OPERATION,
        batch({ changes: [{ petId: first, count: 1, asOf: latest + 1 }] }),
        400,
      );
      expect(body).toMatchObject({
        code: "invalid_body",
        message: `changes[0].asOf ${latest + 1} is after the latest change (seq ${latest}): a count is as of a seq a read of the inventory gave (Inventory-Seq); nothing was changed`,
      });
      expect(await everything()).toEqual(before);
    });

    it("200: the same sales again come back duplicate, and change nothing", async () => {
      const [first, second] = pets();
      const before = await everything();
      const { body } = await conforming(OPERATION, batch(sales(first, second)), 200);
      expect(body).toMatchObject({ changed: 0, unchanged: 3, failed: 0 });
      expect((body as BatchAnswer).results.map((r) => r.outcome)).toEqual([
        "duplicate",
        "duplicate",
        "duplicate",
      ]);
      expect(await everything()).toEqual(before);
    });

    it("200: a dry run evaluates the batch and writes nothing, not even its Idempotency-Key", async () => {
      const [first, second] = pets();
      const [q1, q2] = [await quantityOf(first), await quantityOf(second)];
      const changes = [
        { petId: first, delta: -1, ref: "conformance-dry/1" },
        { petId: second, quantity: q2 + 10, ifQuantity: q2 },
      ];
      const headers = { "idempotency-key": "conformance-batch-dry" };
      const before = await everything();
      const dry = await conforming(OPERATION, batch({ dryRun: true, changes }, headers), 200);
      expect(dry.body).toMatchObject({
        changed: 2,
        results: [
          { outcome: "changed", previous: q1, quantity: q1 - 1 },
          { outcome: "changed", previous: q2, quantity: q2 + 10 },
        ],
      });
      expect(await everything()).toEqual(before);
      // The key kept no record: the real batch with it applies, and is no replay.
      const real = await conforming(OPERATION, batch({ changes }, headers), 200);
      expect(real.headers.get("idempotent-replayed")).toBeNull();
      expect(real.body).toEqual(dry.body);
    });

    it("409: an atomic batch with an unknown pet writes nothing; its replay says so", async () => {
      const [first] = pets();
      const { unknownId } = proxySuite();
      const q1 = await quantityOf(first);
      const call = batch(
        {
          atomic: true,
          changes: [
            { petId: first, delta: 1, ref: "conformance-atomic/1" },
            { petId: unknownId, quantity: 3 },
          ],
        },
        { "idempotency-key": "conformance-batch-409" },
      );
      const before = await everything();
      const rejected = await conforming(OPERATION, call, 409);
      expect(rejected.body).toMatchObject({
        code: "batch_rejected",
        status: 409,
        results: [
          { petId: first, outcome: "changed", previous: q1, quantity: q1 + 1 },
          { petId: unknownId, outcome: "not_found", previous: null, quantity: null, status: null },
        ],
      });
      expect(await everything()).toEqual(before);
      const replayed = await conforming(OPERATION, call, 409);
      expect(replayed.headers.get("idempotent-replayed")).toBe("true");
      expect(replayed.body).toEqual(rejected.body);
      // Nothing was written, so the ref is still free.
      const applied = await conforming(
        OPERATION,
        batch({ changes: [{ petId: first, delta: 1, ref: "conformance-atomic/1" }] }),
        200,
      );
      expect(applied.body).toMatchObject({ changed: 1 });
    });

    it("400: a change the document forbids as well, named changes[i].field, nothing changed", async () => {
      const [first, second] = pets();
      const cases: [body: object, named: RegExp][] = [
        [{ changes: [{ petId: first, delta: 0 }] }, /^changes\[0\]\.delta /],
        [
          {
            changes: [
              { petId: first, delta: 1 },
              { petId: second, quantity: 4, delta: 1 },
            ],
          },
          /^changes\[1\] must have one of quantity .* not quantity and delta/,
        ],
        [{ changes: [{ petId: first }] }, /^changes\[0\] must have one of quantity .* not none/],
        [{ changes: [{ petId: 0, quantity: 4 }] }, /^changes\[0\]\.petId /],
        [{ changes: [{ petId: first, quantity: -1 }] }, /^changes\[0\]\.quantity /],
        [
          { changes: [{ petId: first, delta: 1, ifQuantity: 2147483648 }] },
          /^changes\[0\]\.ifQuantity /,
        ],
        [
          {
            changes: [
              { petId: first, delta: 1 },
              { petId: first, delta: 1, ref: "two words" },
            ],
          },
          /^changes\[1\]\.ref /,
        ],
        [{ changes: [{ petId: first, delta: 1, ref: "r".repeat(129) }] }, /^changes\[0\]\.ref /],
        [{ changes: [{ petId: first, qty: 4 }] }, /^changes\[0\]\.qty is not a field of a change/],
        [{ changes: [{ petId: first, count: 4 }] }, /^changes\[0\]\.asOf is required with count/],
        [
          { changes: [{ petId: first, count: 4, asOf: 1, ifQuantity: 4 }] },
          /^changes\[0\]\.ifQuantity does not go with count/,
        ],
        [
          { changes: [{ petId: first, count: 4, delta: -1, asOf: 1 }] },
          /^changes\[0\] must have one of quantity .* not delta and count/,
        ],
        [
          { changes: [{ petId: first, quantity: 4, asOf: 1 }] },
          /^changes\[0\]\.asOf goes with count/,
        ],
        [{ changes: [{ petId: first, count: 2147483648, asOf: 1 }] }, /^changes\[0\]\.count /],
        [{ changes: [{ petId: first, count: 1, asOf: -1 }] }, /^changes\[0\]\.asOf /],
        [{ changes: [] }, /^changes must hold 1 to 10000 changes, got 0/],
        [
          { changes: Array.from({ length: 10_001 }, () => ({ petId: first, delta: 1 })) },
          /^changes must hold 1 to 10000 changes, got 10001/,
        ],
        [
          { changes: [{ petId: first, delta: 1 }], force: true },
          /^force is not a field of a batch/,
        ],
        [{ atomic: "yes", changes: [{ petId: first, delta: 1 }] }, /^atomic must be true or false/],
      ];
      const before = await everything();
      for (const [body, named] of cases) {
        const exchange = await forbidden(OPERATION, batch(body), 400);
        const context = JSON.stringify(body).slice(0, 120);
        expect(exchange.body, context).toMatchObject({ code: "invalid_body" });
        expect((exchange.body as { message: string }).message, context).toMatch(named);
        expect((exchange.body as { message: string }).message, context).toMatch(
          /; nothing was changed$/,
        );
      }
      expect(await everything()).toEqual(before);
    });

    it("400: a malformed Idempotency-Key, or an X-Change-Reason the server refuses", async () => {
      const [first] = pets();
      const body = { changes: [{ petId: first, delta: 1 }] };
      const before = await everything();
      for (const key of ["with space", "k".repeat(256)]) {
        const exchange = await forbidden(OPERATION, batch(body, { "idempotency-key": key }), 400);
        expect(exchange.body, key).toMatchObject({ code: "invalid_header" });
      }
      // The document's pattern refuses these reasons too: Prism flags them, the server says 400.
      for (const reason of ["r".repeat(201), "tab\there"]) {
        const exchange = await forbidden(
          OPERATION,
          batch(body, { "x-change-reason": reason }),
          400,
        );
        expect(exchange.body, reason).toMatchObject({ code: "invalid_header" });
      }
      expect(await everything()).toEqual(before);
    });

    it("401: a key the server does not accept, or none", async () => {
      const [first] = pets();
      const call = batch({ changes: [{ petId: first, delta: 1 }] });
      const { headers } = await conforming(OPERATION, { ...call, key: "not-a-key" }, 401);
      expect(headers.get("www-authenticate")).toBe(
        'Bearer realm="petstore", error="invalid_token"',
      );
      await forbidden(OPERATION, { ...call, key: null }, 401);
    });

    it("403: a read-only key (scope read), nothing changed", async () => {
      const [first] = pets();
      const before = await everything();
      const { body } = await conforming(
        OPERATION,
        { ...batch({ changes: [{ petId: first, delta: 1 }] }), key: READ_KEY },
        403,
      );
      expect(body).toMatchObject({ code: "forbidden" });
      expect(await everything()).toEqual(before);
    });

    it("413: a body over 2 MiB, though of no more changes than the document allows", async () => {
      const [first] = pets();
      // Prism forwards the body as it re-serializes it, so the size is in the values: a ref
      // of 128 backslashes is 256 characters of JSON.
      const change = { petId: first, delta: 1, ref: "\\".repeat(128) };
      const body = JSON.stringify({ changes: Array.from({ length: 10_000 }, () => change) });
      expect(body.length).toBeGreaterThan(2 * 1024 * 1024);
      const before = await everything();
      const exchange = await conforming(OPERATION, { method: "POST", path: PATH, body }, 413);
      expect(exchange.body).toMatchObject({ code: "payload_too_large" });
      expect(await everything()).toEqual(before);
    });

    it("415: a body that is not application/json", async () => {
      const [first] = pets();
      const call = batch(
        { changes: [{ petId: first, delta: 1 }] },
        { "content-type": "text/plain" },
      );
      const { body } = await forbidden(OPERATION, call, 415);
      expect(body).toMatchObject({ code: "unsupported_media_type" });
    });

    it("200 replayed, then 422: an Idempotency-Key used before for a different batch", async () => {
      const [first] = pets();
      const headers = { "idempotency-key": "conformance-batch-422" };
      const call = batch({ changes: [{ petId: first, delta: 1 }] }, headers);
      const applied = await conforming(OPERATION, call, 200);
      const replayed = await conforming(OPERATION, call, 200);
      expect(replayed.headers.get("idempotent-replayed")).toBe("true");
      expect(replayed.body).toEqual(applied.body);
      const { body } = await conforming(
        OPERATION,
        batch({ changes: [{ petId: first, delta: 2 }] }, headers),
        422,
      );
      expect(body).toMatchObject({ code: "idempotency_key_reused" });
    });

    it("503: another process holds the database's write lock for longer than the server waits", async () => {
      const [first] = pets();
      const { body, headers } = await whileSqliteLocked(proxySuite().server.dbPath, () =>
        conforming(OPERATION, batch({ changes: [{ petId: first, delta: 1 }] }), 503),
      );
      expect(body).toMatchObject({ code: "unavailable" });
      expect(headers.get("retry-after")).toBe("1");
    });

    it("405: any other method, with Allow: POST (no operation of the document)", async () => {
      const { observing } = proxySuite();
      for (const method of ["GET", "PUT", "DELETE"] as const) {
        const exchange = await send(observing, { method, path: PATH });
        expect(exchange.status, method).toBe(405);
        expect(exchange.headers.get("allow"), method).toBe("POST");
        expect(exchange.headers.get("x-request-id"), method).toMatch(/^[0-9a-f-]{36}$/);
        expect(exchange.body, method).toMatchObject({ code: "method_not_allowed", status: 405 });
        const response = exchange.violations.filter((v) => v.location[0] === "response");
        expect(describeViolations(response), method).toEqual([]);
      }
    });
  });
}
