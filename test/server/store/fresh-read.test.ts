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
  it("answers a call made during a read with the next read, which starts after it", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const first = fresh();
    expect(reads).toHaveLength(1);
    // Read 1 may have been sent before these calls: they must not get its answer.
    const second = fresh();
    const third = fresh();
    expect(reads).toHaveLength(1);
    reads[0]?.resolve(1);
    expect(await first).toBe(1);
    await tick();
    expect(reads).toHaveLength(2);
    const fourth = fresh();
    reads[1]?.resolve(2);
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    await tick();
    expect(reads).toHaveLength(3);
    reads[2]?.resolve(3);
    expect(await fourth).toBe(3);
  });

  it("starts a new read for a call made when none is in flight", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const first = fresh();
    reads[0]?.resolve(1);
    await first;
    const second = fresh();
    expect(reads).toHaveLength(2);
    reads[1]?.resolve(5);
    expect(await second).toBe(5);
  });

  it("fails only the calls a failed read answers; the waiting ones get the next read", async () => {
    const { reads, read } = manualReads();
    const fresh = freshRead(read);
    const first = fresh();
    const second = fresh();
    reads[0]?.reject(new Error("connection lost"));
    await expect(first).rejects.toThrow("connection lost");
    await tick();
    reads[1]?.resolve(7);
    expect(await second).toBe(7);
  });
});
