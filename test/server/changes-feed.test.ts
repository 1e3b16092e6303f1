/** GET /v1/inventory/changes through app.inject() and a listening app: pages, parameters, long poll. */
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FEED_POLL_MS } from "../../src/server/routes/inventory-changes.js";
import { ManualTimer } from "../support/manual-timer.js";
import { expectError } from "./expect-error.js";
import { AUTH, MAX_ID, READ_AUTH, createTestApp, type TestApp } from "./fixture.js";

let t: TestApp;
/** The long poll's clock: its pauses end only when a test moves it. */
let timer: ManualTimer;
beforeEach(async () => {
  timer = new ManualTimer();
  t = await createTestApp({ clock: () => Date.UTC(2026, 10, 25, 9, 0, 0), timer });
});
afterEach(() => t.close());

interface Page {
  changes: {
    seq: number;
    petId: number;
    previous: number | null;
    quantity: number;
    ref: string | null;
  }[];
  next: number;
}

const feed = async (query = "", headers = AUTH) =>
  t.app.inject({ url: `/v1/inventory/changes${query}`, headers });

const patch = (petId: number, quantity: number) =>
  t.app.inject({
    method: "PATCH",
    url: `/v1/inventory/${petId}`,
    headers: AUTH,
    payload: { quantity },
  });

describe("GET /v1/inventory/changes", () => {
  it("lists every change in seq order with next, int64 exact, for a read key too", async () => {
    await patch(1, 7);
    const response = await feed("", READ_AUTH);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    const page = response.json<Page>();
    expect(page.changes.map((change) => [change.petId, change.previous, change.quantity])).toEqual([
      [1, null, 3],
      [2, null, 0],
      [Number(MAX_ID), null, 5],
      [1, 3, 7],
    ]);
    expect(page.next).toBe(page.changes.at(-1)?.seq);
    expect(response.body).toContain(`"petId":${MAX_ID},`);
    expect(response.body).toMatch(
      /^\{"changes":\[\{"seq":\d+,"at":"[^"]+Z","petId":1,"previous":null,"quantity":3,"keyName":null,"requestId":null,"reason":null,"ref":null\},/,
    );
  });

  it("pages by after and limit; an empty page answers next = after", async () => {
    for (let quantity = 10; quantity < 15; quantity++) await patch(1, quantity);
    const all = (await feed("?limit=1000")).json<Page>().changes;
    expect(all).toHaveLength(8);
    const first = (await feed("?limit=3")).json<Page>();
    expect(first.changes).toEqual(all.slice(0, 3));
    const second = (await feed(`?after=${first.next}&limit=3`)).json<Page>();
    expect(second.changes).toEqual(all.slice(3, 6));
    const last = all.at(-1)?.seq ?? 0;
    expect((await feed(`?after=${last}`)).json()).toEqual({ changes: [], next: last });
    expect((await feed("?after=9223372036854775807")).body).toBe(
      '{"changes":[],"next":9223372036854775807}',
    );
    // An empty page says how far the store goes (a cursor above it is not this store's); a
    // page with changes does not need to.
    expect((await feed(`?after=${last}`)).headers["inventory-seq"]).toBe(String(last));
    expect((await feed("?after=9223372036854775807")).headers["inventory-seq"]).toBe(String(last));
    expect((await feed("?limit=3")).headers["inventory-seq"]).toBeUndefined();
  });

  it("answers a cursor past the latest change at once, even asked to wait: it is not this store's", async () => {
    const last = (await feed("?limit=1000")).json<Page>().changes.at(-1)?.seq ?? 0;
    // The long poll's clock never moves here: a request that waited would never answer.
    const response = await feed(`?after=${last + 100}&wait=5`);
    expect(timer.pausing).toBe(0);
    expect(response.json()).toEqual({ changes: [], next: last + 100 });
    expect(response.headers["inventory-seq"]).toBe(String(last));
  });

  it("has the same seqs as the history records", async () => {
    await patch(1, 9);
    const history = (await t.app.inject({ url: "/v1/inventory/1/history", headers: AUTH })).json<
      { seq: number }[]
    >();
    const fromFeed = (await feed()).json<Page>().changes.filter((change) => change.petId === 1);
    expect(history.map((record) => record.seq)).toEqual(
      fromFeed.map((change) => change.seq).reverse(),
    );
  });

  it.each([
    [
      "?after=-1",
      "invalid_parameter",
      /^after must be a whole number from 0 to 9223372036854775807/,
    ],
    ["?after=1.5", "invalid_parameter", /^after must be/],
    ["?after=9223372036854775808", "invalid_parameter", /^after must be/],
    ["?after=01", "invalid_parameter", /^after must be/],
    ["?limit=0", "invalid_limit", /^limit must be a whole number from 1 to 1000/],
    ["?limit=1001", "invalid_limit", /^limit must be/],
    ["?wait=61", "invalid_parameter", /^wait must be a whole number from 0 to 60/],
    ["?wait=x", "invalid_parameter", /^wait must be/],
    ["?after=1&after=2", "invalid_parameter", /^after must be/],
  ])("400 for %s", async (query, code, message) => {
    const response = await feed(query);
    expectError(response, 400, code);
    expect(response.json<{ message: string }>().message).toMatch(message);
  });

  it("401 without a key; 405 with Allow for a write method", async () => {
    expectError(await t.app.inject({ url: "/v1/inventory/changes" }), 401, "unauthorized");
    const post = await t.app.inject({
      method: "POST",
      url: "/v1/inventory/changes",
      headers: AUTH,
    });
    expectError(post, 405, "method_not_allowed");
    expect(post.headers.allow).toBe("GET, HEAD");
  });
});

describe("GET /v1/inventory/changes?wait=S: the long poll", () => {
  let base: string;
  beforeEach(async () => {
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/v1`;
  });
  const get = async (query: string) => {
    const response = await fetch(`${base}/inventory/changes${query}`, { headers: AUTH });
    return (await response.json()) as Page;
  };
  const last = async () => (await get("?limit=1000")).next;

  it("answers at once when a change is already past the cursor", async () => {
    const page = await get("?wait=30");
    expect(page.changes).toHaveLength(3);
    expect(timer.asked).toEqual([]);
  });

  it(`waits for the first new change and answers with it at the next poll (${FEED_POLL_MS} ms)`, async () => {
    const cursor = await last();
    const waiting = get(`?after=${cursor}&wait=30`);
    await timer.paused("the long poll to wait");
    await patch(2, 8);
    expect(await timer.tick()).toBe(FEED_POLL_MS);
    const page = await waiting;
    expect(page.changes.map((change) => [change.petId, change.quantity])).toEqual([[2, 8]]);
    expect(page.next).toBe(page.changes[0]?.seq);
    expect(timer.asked).toEqual([FEED_POLL_MS]);
  });

  it("sees a change another connection made to the file, as another process's", async () => {
    const cursor = await last();
    const waiting = get(`?after=${cursor}&wait=30`);
    await timer.paused("the long poll to wait");
    const { openSqliteStore } = await import("../../src/server/store/sqlite/store.js");
    const other = openSqliteStore(t.dbPath);
    await other.updateQuantity(1n, 42);
    await other.close();
    expect(await timer.tick()).toBe(FEED_POLL_MS);
    const page = await waiting;
    expect(page.changes.map((change) => change.quantity)).toEqual([42]);
  });

  it("answers an empty page with next = after once the wait is over, not before", async () => {
    const cursor = await last();
    const waiting = get(`?after=${cursor}&wait=1`);
    // Each tick ends one poll's pause; the request pausing again shows it has not answered.
    const ticks: number[] = [];
    for (let poll = 0; poll < 1000 / FEED_POLL_MS; poll++) {
      ticks.push(await timer.tick(`poll ${poll + 1} of the long poll`));
    }
    expect(ticks).toEqual([200, 400, 600, 800, 1000]);
    expect(await waiting).toEqual({ changes: [], next: cursor });
    expect(timer.pausing).toBe(0);
  });

  it("ends waiting requests at once when the server closes", async () => {
    const cursor = await last();
    const waiting = get(`?after=${cursor}&wait=60`);
    await timer.paused("the long poll to wait");
    await t.app.close();
    // Answered with the clock where it was: the close ended the wait, not its 60 s.
    expect(await waiting).toEqual({ changes: [], next: cursor });
    expect(timer.now()).toBe(0);
    expect(timer.pausing).toBe(0);
  });
});
