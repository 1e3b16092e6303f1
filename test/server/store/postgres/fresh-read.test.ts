import { describe, expect, it } from "vitest";
import {
  freshRead,
  MAX_TURNS_GATHERING,
} from "../../../../src/server/store/postgres/fresh-read.js";

/** A read the test finishes by hand: each call of `read` is one pending read, in order. */
function manualReads() {
  const reads: { resolve: (value: number) => void; reject: (error: Error) => void }[] = [];
  const read = () =>
    new Promise<number>((resolve, reject) => {
      reads.push({ resolve, reject });
    });
  return { reads, read };
}

/** One turn of the event loop. */
const tick = () => new Promise((resolve) => setImmediate(resolve));
/** Enough turns for calls that stopped coming to start their read. */
const quiet = async () => {
  for (let turn = 0; turn <= MAX_TURNS_GATHERING + 2; turn++) await tick();
};

describe("freshRead", () => {
  it("answers the calls of one turn with one read, started after all of them", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const calls = [fresh(), fresh(), fresh()];
    // Not started yet: a call later in this turn, or in the next, still joins it.
    expect(reads).toHaveLength(0);
    await quiet();
    expect(reads).toHaveLength(1);
    reads[0]?.resolve(1);
    expect(await Promise.all(calls)).toEqual([1, 1, 1]);
  });

  it("waits while calls keep coming, but no more than MAX_TURNS_GATHERING turns", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const calls = [fresh()];
    for (let turn = 0; turn < MAX_TURNS_GATHERING + 3 && reads.length === 0; turn++) {
      await tick();
      calls.push(fresh());
    }
    // The read started although a call came every turn; the calls before it share it.
    expect(reads).toHaveLength(1);
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.length).toBeLessThanOrEqual(MAX_TURNS_GATHERING + 3);
    const last = calls.pop();
    reads[0]?.resolve(1);
    expect(await Promise.all(calls)).toEqual(calls.map(() => 1));
    // The call made in the turn the read started may have come after it: it gets the next.
    await quiet();
    expect(reads).toHaveLength(2);
    reads[1]?.resolve(2);
    expect(await last).toBe(2);
  });

  it("answers calls made while a read is in flight with the next read, started after it ends", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const first = fresh();
    await quiet();
    expect(reads).toHaveLength(1);
    // Read 1 may have been sent before these calls, made over several turns: they must not
    // get its answer. They wait for it to end and then share one read.
    const second = fresh();
    await tick();
    const third = fresh();
    await quiet();
    expect(reads).toHaveLength(1);
    reads[0]?.resolve(1);
    expect(await first).toBe(1);
    await quiet();
    expect(reads).toHaveLength(2);
    reads[1]?.resolve(2);
    expect(await Promise.all([second, third])).toEqual([2, 2]);
  });

  it("starts the next read after a failed one ends, too", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const first = fresh();
    await quiet();
    const second = fresh();
    await quiet();
    expect(reads).toHaveLength(1);
    reads[0]?.reject(new Error("connection lost"));
    await expect(first).rejects.toThrow("connection lost");
    await quiet();
    expect(reads).toHaveLength(2);
    reads[1]?.resolve(3);
    expect(await second).toBe(3);
  });

  it("fails only the calls a failed read answers; a later call gets its own read", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const first = fresh();
    await quiet();
    reads[0]?.reject(new Error("connection lost"));
    await expect(first).rejects.toThrow("connection lost");
    const second = fresh();
    await quiet();
    expect(reads).toHaveLength(2);
    reads[1]?.resolve(7);
    expect(await second).toBe(7);
  });

  it("fails the calls of a read that throws before it returns a promise", async () => {
    const fresh = freshRead<number>(() => {
      throw new Error("not connected");
    });
    await expect(fresh()).rejects.toThrow("not connected");
  });
});
