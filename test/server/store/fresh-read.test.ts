import { describe, expect, it } from "vitest";
import { freshRead } from "../../../src/server/store/fresh-read.js";

/** A read the test finishes by hand: each call of `read` is one pending read, in order. */
function manualReads() {
  const reads: { resolve: (value: number) => void; reject: (error: Error) => void }[] = [];
  const read = () =>
    new Promise<number>((resolve, reject) => {
      reads.push({ resolve, reject });
    });
  return { reads, read };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("freshRead", () => {
  it("answers the calls of one turn with one read, started after all of them", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const calls = [fresh(), fresh(), fresh()];
    // Not started yet: a call later in this turn still joins it.
    expect(reads).toHaveLength(0);
    await tick();
    expect(reads).toHaveLength(1);
    reads[0]?.resolve(1);
    expect(await Promise.all(calls)).toEqual([1, 1, 1]);
  });

  it("answers a call made while a read is in flight with a new read, which starts after it", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const first = fresh();
    await tick();
    expect(reads).toHaveLength(1);
    // Read 1 may have been sent before this call: it must not get read 1's answer, and it
    // does not wait for read 1 to end before its own starts.
    const second = fresh();
    await tick();
    expect(reads).toHaveLength(2);
    reads[1]?.resolve(2);
    expect(await second).toBe(2);
    reads[0]?.resolve(1);
    expect(await first).toBe(1);
  });

  it("fails only the calls a failed read answers; a later call gets its own read", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const first = fresh();
    await tick();
    reads[0]?.reject(new Error("connection lost"));
    await expect(first).rejects.toThrow("connection lost");
    const second = fresh();
    await tick();
    reads[1]?.resolve(7);
    expect(await second).toBe(7);
  });
});
