import { describe, expect, it } from "vitest";
import type { ChangeFeedPage, FeedChange } from "../../src/api/types.js";
import { ApiError, MalformedResponseError, NetworkError } from "../../src/client/errors.js";
import type { InterruptSignal } from "../../src/exit-codes.js";
import {
  FOLLOW_PACE_MS,
  FOLLOW_WAIT_SECONDS,
  isPassingFailure,
  walkFeed,
  type FeedWalk,
} from "../../src/feed/walk.js";

function change(seq: bigint): FeedChange {
  return {
    seq,
    at: "2026-11-22T14:03:12.481Z",
    petId: 42n,
    previous: 8,
    quantity: 7,
    keyName: "till-1",
    requestId: null,
    reason: null,
    ref: null,
  };
}

/** The page a feed holding seqs 1..total gives: at most `limit` after `after`. */
function feedOf(total: number) {
  return (after: bigint, limit: number): ChangeFeedPage => {
    const changes: FeedChange[] = [];
    for (let seq = after + 1n; seq <= BigInt(total) && changes.length < limit; seq += 1n) {
      changes.push(change(seq));
    }
    return { changes, next: changes.at(-1)?.seq ?? after };
  };
}

interface Recorded {
  requests: string[];
  pages: bigint[][];
  sleeps: number[];
  said: string[];
}

/** A walk on fakes: `answer` gives each request's page, or throws. */
function walkOn(
  answer: (after: bigint, limit: number, wait: number, call: number) => ChangeFeedPage,
  overrides: Partial<FeedWalk> = {},
): { walk: FeedWalk; recorded: Recorded } {
  const recorded: Recorded = { requests: [], pages: [], sleeps: [], said: [] };
  let calls = 0;
  // A fake clock that only sleeping moves: requests take no time.
  let clock = 0;
  const walk: FeedWalk = {
    after: 0n,
    limit: undefined,
    follow: false,
    fetchPage: (after, limit, wait) => {
      recorded.requests.push(`after=${after} limit=${limit} wait=${wait}`);
      calls += 1;
      return new Promise((resolve) => {
        resolve(answer(after, limit, wait, calls));
      });
    },
    onPage: (page) => {
      recorded.pages.push(page.changes.map((c) => c.seq));
      return Promise.resolve();
    },
    sleep: (ms) => {
      recorded.sleeps.push(ms);
      clock += ms;
      return Promise.resolve();
    },
    now: () => clock,
    random: () => 0.5,
    onLost: (error) => recorded.said.push(`lost: ${error.message}`),
    onBack: (after) => recorded.said.push(`back after ${after}`),
    ...overrides,
  };
  return { walk, recorded };
}

const refused = () =>
  new NetworkError({
    failure: "unreachable",
    code: "ECONNREFUSED",
    message: "cannot reach http://127.0.0.1:4010/v1/inventory/changes: connection refused",
    method: "GET",
    url: "http://127.0.0.1:4010/v1/inventory/changes",
    attempts: 3,
  });

const answered = (status: number, code?: string) =>
  new ApiError({
    status,
    code,
    message: `the server answered ${status}`,
    operation: "listInventoryChanges",
    method: "GET",
    url: "http://127.0.0.1:4010/v1/inventory/changes",
    attempts: 3,
  });

describe("walkFeed without --follow", () => {
  it("asks for pages of 1000 until one is not full, and hands each on in order", async () => {
    const { walk, recorded } = walkOn(feedOf(2500));
    const end = await walkFeed(walk);
    expect(recorded.requests).toEqual([
      "after=0 limit=1000 wait=0",
      "after=1000 limit=1000 wait=0",
      "after=2000 limit=1000 wait=0",
    ]);
    expect(recorded.pages.map((page) => [page[0], page.at(-1), page.length])).toEqual([
      [1n, 1000n, 1000],
      [1001n, 2000n, 1000],
      [2001n, 2500n, 500],
    ]);
    expect(end).toEqual({ after: 2500n, printed: 2500, interruptedBy: undefined });
  });

  it("asks once more after a full last page, and ends on the empty one", async () => {
    const { walk, recorded } = walkOn(feedOf(1000));
    const end = await walkFeed(walk);
    expect(recorded.requests).toEqual([
      "after=0 limit=1000 wait=0",
      "after=1000 limit=1000 wait=0",
    ]);
    expect(recorded.pages.map((page) => page.length)).toEqual([1000, 0]);
    expect(end.after).toBe(1000n);
  });

  it("starts after the cursor given", async () => {
    const { walk, recorded } = walkOn(feedOf(30), { after: 25n });
    const end = await walkFeed(walk);
    expect(recorded.pages).toEqual([[26n, 27n, 28n, 29n, 30n]]);
    expect(end).toEqual({ after: 30n, printed: 5, interruptedBy: undefined });
  });

  it("asks for no more than --limit leaves, so the cursor is the last change printed", async () => {
    const { walk, recorded } = walkOn(feedOf(5000), { limit: 1500 });
    const end = await walkFeed(walk);
    expect(recorded.requests).toEqual(["after=0 limit=1000 wait=0", "after=1000 limit=500 wait=0"]);
    expect(end).toEqual({ after: 1500n, printed: 1500, interruptedBy: undefined });
  });

  it("throws a failure at once, even one a follower would wait out", async () => {
    const { walk, recorded } = walkOn((after, limit, _wait, call) => {
      if (call === 2) throw refused();
      return feedOf(3000)(after, limit);
    });
    await expect(walkFeed(walk)).rejects.toThrow("connection refused");
    expect(recorded.pages).toHaveLength(1);
    expect(recorded.sleeps).toEqual([]);
  });
});

describe("walkFeed with --follow", () => {
  it("asks with a long poll every time and goes on past pages that are not full", async () => {
    const { walk, recorded } = walkOn(
      (after, limit, _wait, call) =>
        call % 2 === 0 ? { changes: [], next: after } : feedOf(Number(after) + 2)(after, limit),
      { follow: true, limit: 6 },
    );
    const end = await walkFeed(walk);
    expect(recorded.requests.every((r) => r.endsWith(`wait=${FOLLOW_WAIT_SECONDS}`))).toBe(true);
    expect(recorded.pages).toEqual([[1n, 2n], [], [3n, 4n], [], [5n, 6n]]);
    expect(end).toEqual({ after: 6n, printed: 6, interruptedBy: undefined });
  });

  it("asks again at most every FOLLOW_PACE_MS after a page that was not full; full pages back to back", async () => {
    const { walk, recorded } = walkOn(
      (after, limit, _wait, call) =>
        call <= 2 ? feedOf(2000)(after, limit) : feedOf(Number(after) + 1)(after, limit),
      { follow: true, limit: 2003 },
    );
    await walkFeed(walk);
    // Two full pages at once, then three single changes, each a pace after the last request.
    expect(recorded.requests).toHaveLength(5);
    expect(recorded.sleeps).toEqual([FOLLOW_PACE_MS, FOLLOW_PACE_MS]);
  });

  it("waits out a server that went away, says so once, and goes on from the last cursor", async () => {
    const { walk, recorded } = walkOn(
      (after, limit, _wait, call) => {
        if (call >= 2 && call <= 5) throw call === 3 ? answered(503, "unavailable") : refused();
        return feedOf(Number(after) + 3)(after, limit);
      },
      { follow: true, limit: 6 },
    );
    const end = await walkFeed(walk);
    expect(recorded.requests).toEqual([
      "after=0 limit=6 wait=30",
      "after=3 limit=3 wait=30",
      "after=3 limit=3 wait=30",
      "after=3 limit=3 wait=30",
      "after=3 limit=3 wait=30",
      "after=3 limit=3 wait=30",
    ]);
    expect(recorded.said).toEqual([
      "lost: cannot reach http://127.0.0.1:4010/v1/inventory/changes: connection refused",
      "back after 3",
    ]);
    // The back-off of api/backoff.ts from 0.5 s (random 0.5: three quarters of each step).
    // The pace after the first page (not full), then the back-off's pauses.
    expect(recorded.sleeps).toEqual([FOLLOW_PACE_MS, 375, 750, 1500, 3000]);
    expect(end).toEqual({ after: 6n, printed: 6, interruptedBy: undefined });
  });

  it("says so again for a second outage, the back-off starting over", async () => {
    const { walk, recorded } = walkOn(
      (after, limit, _wait, call) => {
        if (call === 2 || call === 4) throw refused();
        return feedOf(Number(after) + 1)(after, limit);
      },
      { follow: true, limit: 3 },
    );
    await walkFeed(walk);
    expect(recorded.said.filter((line) => line.startsWith("lost"))).toHaveLength(2);
    expect(recorded.sleeps).toEqual([FOLLOW_PACE_MS, 375, FOLLOW_PACE_MS, 375]);
  });

  it.each<[string, () => Error]>([
    ["a 400", () => answered(400, "invalid_parameter")],
    ["a 401", () => answered(401, "unauthorized")],
    [
      "a malformed page",
      () => new MalformedResponseError({ message: "bad", method: "GET", url: "u" }),
    ],
    [
      "an untrusted certificate",
      () =>
        new NetworkError({
          failure: "untrusted-certificate",
          message: "cert",
          method: "GET",
          url: "u",
          attempts: 1,
        }),
    ],
  ])("throws %s: no wait makes it pass", async (_name, failure) => {
    const error = failure();
    const { walk, recorded } = walkOn(
      () => {
        throw error;
      },
      { follow: true },
    );
    await expect(walkFeed(walk)).rejects.toBe(error);
    expect(recorded.sleeps).toEqual([]);
  });

  it("stops at an interrupt while it waits for a page, printing nothing more", async () => {
    let interrupt: (signal: InterruptSignal) => void = () => undefined;
    const interrupted = new Promise<InterruptSignal>((resolve) => (interrupt = resolve));
    const { walk, recorded } = walkOn(feedOf(2), {
      follow: true,
      interrupted,
      fetchPage: (after) => {
        recorded.requests.push(`after=${after}`);
        if (after === 0n) return Promise.resolve(feedOf(2)(0n, 1000));
        interrupt("SIGTERM");
        return new Promise<never>(() => undefined); // a long poll that never answers
      },
    });
    const end = await walkFeed(walk);
    expect(end).toEqual({ after: 2n, printed: 2, interruptedBy: "SIGTERM" });
    expect(recorded.pages).toEqual([[1n, 2n]]);
  });

  it("finishes the page it is printing when interrupted, then stops", async () => {
    let interrupt: (signal: InterruptSignal) => void = () => undefined;
    const interrupted = new Promise<InterruptSignal>((resolve) => (interrupt = resolve));
    const { walk, recorded } = walkOn(feedOf(5), {
      follow: true,
      interrupted,
      onPage: async (page) => {
        interrupt("SIGINT");
        await new Promise((resolve) => setImmediate(resolve));
        recorded.pages.push(page.changes.map((c) => c.seq));
      },
    });
    const end = await walkFeed(walk);
    expect(recorded.pages).toEqual([[1n, 2n, 3n, 4n, 5n]]);
    expect(recorded.requests).toHaveLength(1);
    expect(end).toEqual({ after: 5n, printed: 5, interruptedBy: "SIGINT" });
  });

  it("stops at an interrupt during the pause before asking a lost server again", async () => {
    let interrupt: (signal: InterruptSignal) => void = () => undefined;
    const interrupted = new Promise<InterruptSignal>((resolve) => (interrupt = resolve));
    const { walk, recorded } = walkOn(
      () => {
        throw refused();
      },
      {
        follow: true,
        interrupted,
        sleep: () => {
          interrupt("SIGINT");
          return new Promise<void>(() => undefined);
        },
      },
    );
    const end = await walkFeed(walk);
    expect(end).toEqual({ after: 0n, printed: 0, interruptedBy: "SIGINT" });
    expect(recorded.requests).toHaveLength(1);
  });
});

describe("isPassingFailure", () => {
  it.each<[unknown, boolean]>([
    [refused(), true],
    [
      new NetworkError({ failure: "timeout", message: "t", method: "GET", url: "u", attempts: 1 }),
      true,
    ],
    [answered(503), true],
    [answered(502), true],
    [answered(504), true],
    [answered(429), true],
    [answered(500), false],
    [answered(400), false],
    [answered(403), false],
    [answered(404), false],
    [
      new NetworkError({
        failure: "untrusted-certificate",
        message: "c",
        method: "GET",
        url: "u",
        attempts: 1,
      }),
      false,
    ],
    [new MalformedResponseError({ message: "m", method: "GET", url: "u" }), false],
    [new Error("a bug"), false],
  ])("%s: %s", (error, passing) => {
    expect(isPassingFailure(error)).toBe(passing);
  });
});
