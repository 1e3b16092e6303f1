/** A call the server may hold (a long poll's `waitMs`) and a call its caller gives up (`signal`). */
import { describe, expect, it } from "vitest";
import {
  createTransport,
  type ExchangeRequest,
  type Exchange,
} from "../../src/client/transport.js";

const target = {
  env: "production" as const,
  baseUrl: "http://petstore.test/v1",
  baseUrlSource: "--base-url",
  apiKey: "k-9f3e71",
  apiKeySource: "PETSTORE_API_KEY",
};

function transport(exchange: Exchange, sleeps: number[] = []) {
  return createTransport({
    target,
    exchange,
    timeoutMs: 1000,
    retry: {
      retries: 2,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      random: () => 0.5,
    },
    now: () => 0,
    userAgent: "petstore-test",
  });
}

const page = {
  operation: "listInventoryChanges" as const,
  method: "GET" as const,
  path: "/inventory/changes?after=0&limit=1000&wait=30",
  decode: (body: unknown) => body,
};

/** An exchange that never answers, but fails as a client does when its signal aborts. */
function hanging(requests: ExchangeRequest[]): Exchange {
  return (_url, request) => {
    requests.push(request);
    return new Promise((_resolve, reject) => {
      request.signal.addEventListener("abort", () => {
        reject(Object.assign(new Error("This operation was aborted"), { name: "AbortError" }));
      });
    });
  };
}

describe("a long poll through the transport", () => {
  it("allows the server's wait on top of the attempt's time-out", async () => {
    const requests: ExchangeRequest[] = [];
    const { send } = transport((_url, request) => {
      requests.push(request);
      return Promise.resolve({ status: 200, headers: {}, text: '{"changes":[],"next":0}' });
    });
    await send({ ...page, waitMs: 30_000 });
    await send(page);
    expect(requests.map((request) => request.timeoutMs)).toEqual([31_000, 1000]);
  });

  it("gives up the attempt in flight when the caller aborts, and tries no other", async () => {
    const requests: ExchangeRequest[] = [];
    const sleeps: number[] = [];
    const { send } = transport(hanging(requests), sleeps);
    const giveUp = new AbortController();
    const call = send({ ...page, waitMs: 30_000, signal: giveUp.signal });
    await new Promise((resolve) => setImmediate(resolve));
    expect(requests).toHaveLength(1);
    giveUp.abort(new Error("interrupted by SIGINT"));
    await expect(call).rejects.toThrow("interrupted by SIGINT");
    expect(requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("sends nothing for a call given up before it starts", async () => {
    const requests: ExchangeRequest[] = [];
    const { send } = transport(hanging(requests));
    const giveUp = new AbortController();
    giveUp.abort();
    await expect(send({ ...page, signal: giveUp.signal })).rejects.toThrow();
    expect(requests).toEqual([]);
  });

  it("still reports its own time-out as one, with the signal of a caller that did not abort", async () => {
    const { send } = createTransport({
      target,
      exchange: hanging([]),
      timeoutMs: 20,
      retry: { retries: 0, sleep: () => Promise.resolve(), random: () => 0.5 },
      now: () => 0,
      userAgent: "petstore-test",
    });
    await expect(send({ ...page, signal: new AbortController().signal })).rejects.toMatchObject({
      name: "NetworkError",
      failure: "timeout",
    });
  });
});
