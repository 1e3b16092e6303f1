/**
 * GET /inventory/changes (listInventoryChanges, the change feed) through the proxies of
 * server-proxy.test.ts, which registers these cases after the others: the feed then holds the
 * demo's seed records and every change the earlier cases made. Every status the document gives
 * the operation, the paging, the long poll, the history's seqs, and the 405 of other methods.
 *
 * Prism reads an int64 as a JavaScript number: it refuses an `after` above 2^53 - 1 that the
 * server accepts (up to 2^63 - 1), and rewrites a larger `next` inexactly. The demo's seqs are
 * far below that; the server's own tests cover the largest cursor.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { hasSettled } from "../support/settled.js";
import {
  READ_KEY,
  conforming,
  describeViolations,
  forbidden,
  proxySuite,
  send,
} from "./server-proxy-harness.js";

const OPERATION = "listInventoryChanges";
const PATH = "/inventory/changes";

interface FeedRecord {
  seq: number;
  at: string;
  petId: number;
  previous: number | null;
  quantity: number;
  keyName: string | null;
  requestId: string | null;
  reason: string | null;
  ref: string | null;
}

interface FeedPage {
  changes: FeedRecord[];
  next: number;
}

/** One page through the strict proxy: Prism found nothing wrong with the request or answer. */
async function page(query: string, key?: string): Promise<FeedPage> {
  const call = key === undefined ? { path: `${PATH}${query}` } : { path: `${PATH}${query}`, key };
  return (await conforming(OPERATION, call, 200)).body as FeedPage;
}

/** The whole feed, as one page (the suite makes far fewer than 1000 changes). */
async function wholeFeed(): Promise<FeedRecord[]> {
  const { changes, next } = await page("?limit=1000");
  expect(changes.length).toBeLessThan(1000);
  expect(next).toBe(changes.at(-1)?.seq);
  return changes;
}

/** The cursor past the last change made so far. */
async function end(): Promise<number> {
  return (await page("?limit=1000")).next;
}

/** A demo pet no other case writes, with its quantity now. */
async function quietPet(): Promise<{ petId: number; quantity: number }> {
  const petId = proxySuite().petIds[5];
  if (petId === undefined) throw new Error("the demo has too few pets");
  const { body } = await send(proxySuite().strict, { path: `/inventory/${petId}` });
  return { petId, quantity: (body as { quantity: number }).quantity };
}

/** Registers the feed cases; server-proxy.test.ts calls it once, after the other cases. */
export function describeFeedThroughProxy(): void {
  describe("GET /inventory/changes (listInventoryChanges) through prism proxy", () => {
    it("200: every change in seq order, the demo's seed records first; next is the last seq", async () => {
      const { petIds } = proxySuite();
      const changes = await wholeFeed();
      const seqs = changes.map((change) => change.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(seqs.length);
      // One seed record per demo pet, then the changes of the cases before these.
      const seeds = changes.slice(0, petIds.length);
      expect(seeds.map((change) => change.petId).sort((a, b) => a - b)).toEqual(
        [...petIds].sort((a, b) => a - b),
      );
      for (const seed of seeds) {
        expect(seed).toMatchObject({
          previous: null,
          keyName: null,
          requestId: null,
          reason: "demo data",
          ref: null,
        });
      }
      expect(changes.length).toBeGreaterThan(petIds.length);
      expect(changes.some((change) => change.ref === "conformance-sale/1")).toBe(true);
      // Without limit, at most 100.
      expect((await page("")).changes).toEqual(changes.slice(0, 100));
    });

    it("200: pages by after and limit, following next, add up to the whole feed", async () => {
      const changes = await wholeFeed();
      const walked: FeedRecord[] = [];
      let after = 0;
      for (;;) {
        const { changes: listed, next } = await page(`?after=${after}&limit=4`);
        expect(listed.length).toBeLessThanOrEqual(4);
        expect(listed.every((change) => change.seq > after)).toBe(true);
        expect(next).toBe(listed.at(-1)?.seq ?? after);
        if (listed.length === 0) break;
        walked.push(...listed);
        after = next;
      }
      expect(walked).toEqual(changes);
      // A cursor between two seqs (or past a record) lists what comes after it.
      const middle = changes[Math.floor(changes.length / 2)];
      if (middle === undefined) throw new Error("the feed is empty");
      expect((await page(`?after=${middle.seq}&limit=1000`)).changes).toEqual(
        changes.filter((change) => change.seq > middle.seq),
      );
    });

    it("200: the same page for a read key (scope read)", async () => {
      const { body } = await conforming(OPERATION, { path: `${PATH}?limit=5` }, 200);
      expect(await page("?limit=5", READ_KEY)).toEqual(body);
    });

    it("200: an empty page at the end, next = after; with wait, once the wait is over", async () => {
      const last = await end();
      expect(await page(`?after=${last}`)).toEqual({ changes: [], next: last });
      expect(await page(`?after=${last + 1000}&limit=1&wait=0`)).toEqual({
        changes: [],
        next: last + 1000,
      });
      const waiting = page(`?after=${last}&wait=1`);
      // A request sent after it is answered first: it waits rather than answering at once
      // (its exact second is proved in process, test/server/changes-feed.test.ts).
      expect(await page(`?after=${last}`)).toEqual({ changes: [], next: last });
      expect(await hasSettled(waiting)).toBe(false);
      expect(await waiting).toEqual({ changes: [], next: last });
    });

    it("200: a long poll (wait=30) woken by a PATCH through the proxy answers that change", async () => {
      const last = await end();
      const { petId, quantity } = await quietPet();
      const waiting = page(`?after=${last}&wait=30`);
      let answered = false;
      void waiting.then(
        () => (answered = true),
        () => (answered = true),
      );
      // A request sent after the poll is answered while the poll is not: the server holds it.
      expect(await page(`?after=${last}`)).toEqual({ changes: [], next: last });
      expect(await hasSettled(waiting)).toBe(false);
      const patched = await conforming(
        "updateInventory",
        {
          method: "PATCH",
          path: `/inventory/${petId}`,
          body: JSON.stringify({ quantity: quantity + 1 }),
          headers: { "x-change-reason": "conformance feed" },
        },
        200,
      );
      // Woken by the change, not by the end of its wait: the bound is only for a failure.
      await eventually("the long poll, woken by the PATCH", () => answered, { timeoutMs: 10_000 });
      const woken = await waiting;
      expect(woken).toEqual({
        changes: [
          {
            seq: expect.any(Number) as number,
            at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
            petId,
            previous: quantity,
            quantity: quantity + 1,
            keyName: expect.any(String) as string,
            requestId: patched.headers.get("x-request-id"),
            reason: "conformance feed",
            ref: null,
          },
        ],
        next: woken.changes[0]?.seq,
      });
      expect(woken.next).toBeGreaterThan(last);
      expect(await page(`?after=${woken.next}`)).toEqual({ changes: [], next: woken.next });
    });

    it("200: every history record carries the seq the feed lists its change with", async () => {
      const changes = await wholeFeed();
      for (const petId of proxySuite().petIds) {
        const { body } = await conforming(
          "getInventoryHistory",
          { path: `/inventory/${petId}/history?limit=1000` },
          200,
        );
        const fromFeed = changes.filter((change) => change.petId === petId).reverse();
        expect(body, String(petId)).toEqual(fromFeed);
      }
    });

    it("400: an after, limit or wait the document forbids as well", async () => {
      const cases: [query: string, code: string][] = [
        ["after=-1", "invalid_parameter"],
        ["after=1.5", "invalid_parameter"],
        ["after=abc", "invalid_parameter"],
        ["after=1&after=2", "invalid_parameter"],
        ["limit=0", "invalid_limit"],
        ["limit=1001", "invalid_limit"],
        ["limit=ten", "invalid_limit"],
        ["wait=61", "invalid_parameter"],
        ["wait=-1", "invalid_parameter"],
        ["wait=0.5", "invalid_parameter"],
      ];
      for (const [query, code] of cases) {
        const { body } = await forbidden(OPERATION, { path: `${PATH}?${query}` }, 400);
        expect(body, query).toMatchObject({ code });
        expect((body as { message: string }).message, query).toMatch(
          /^(after|limit|wait) must be a whole number from \d+ to \d+, got /,
        );
      }
    });

    it("400: leading zeros or an empty value, which the document's integers do not rule out", async () => {
      const cases: [query: string, code: string][] = [
        ["after=01", "invalid_parameter"],
        ["after=", "invalid_parameter"],
        ["limit=010", "invalid_limit"],
        ["wait=05", "invalid_parameter"],
      ];
      for (const [query, code] of cases) {
        const { body } = await conforming(OPERATION, { path: `${PATH}?${query}` }, 400);
        expect(body, query).toMatchObject({ code });
      }
    });

    it("401: a key the server does not accept, or none", async () => {
      const { headers } = await conforming(OPERATION, { path: PATH, key: "not-a-key" }, 401);
      expect(headers.get("www-authenticate")).toBe(
        'Bearer realm="petstore", error="invalid_token"',
      );
      await forbidden(OPERATION, { path: PATH, key: null }, 401);
    });

    it("405: any other method, with Allow: GET, HEAD (no operation of the document)", async () => {
      const { observing } = proxySuite();
      for (const method of ["POST", "PUT", "PATCH", "DELETE"] as const) {
        const exchange = await send(observing, { method, path: PATH });
        expect(exchange.status, method).toBe(405);
        expect(exchange.headers.get("allow"), method).toBe("GET, HEAD");
        expect(exchange.headers.get("x-request-id"), method).toMatch(/^[0-9a-f-]{36}$/);
        expect(exchange.body, method).toMatchObject({ code: "method_not_allowed", status: 405 });
        const response = exchange.violations.filter((v) => v.location[0] === "response");
        expect(describeViolations(response), method).toEqual([]);
      }
    });
  });
}
