import { describe, expect, it } from "vitest";
import { IdempotencyIndex } from "../../../src/server/store/idempotency-index.js";

describe("the in-memory index of idempotency records", () => {
  it("finds a key per owner", () => {
    const index = new IdempotencyIndex();
    index.addCommitted(1, "owner-a", "k");
    expect(index.find("owner-a", "k")).toBe(1);
    expect(index.find("owner-b", "k")).toBeUndefined();
    expect(index.find("owner-a", "other")).toBeUndefined();
  });

  it("keeps a key's newest record", () => {
    const index = new IdempotencyIndex();
    index.addCommitted(1, "o", "k");
    index.addCommitted(2, "o", "x");
    index.addCommitted(3, "o", "k");
    expect(index.find("o", "k")).toBe(3);
    expect(index.size).toBe(2);
  });

  it("shows a pending record at once, keeps it on commit and forgets it on rollback", () => {
    const index = new IdempotencyIndex();
    index.addCommitted(1, "o", "k");
    index.addPending(2, "o", "k");
    index.addPending(3, "o", "new");
    expect(index.find("o", "k")).toBe(2);
    expect(index.find("o", "new")).toBe(3);
    // Rows another process appended are committed however this transaction ends.
    expect(index.lastId).toBe(1);
    index.rollback();
    expect(index.find("o", "k")).toBe(1);
    expect(index.find("o", "new")).toBeUndefined();
    index.addPending(2, "o", "new");
    index.commit();
    expect(index.find("o", "new")).toBe(2);
    expect(index.lastId).toBe(2);
    index.rollback();
    expect(index.find("o", "new")).toBe(2);
  });

  it("forgets the entries whose rows were purged, oldest first, and all when the table is empty", () => {
    const index = new IdempotencyIndex();
    for (const [id, key] of [
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ] as const) {
      index.addCommitted(id, "o", key);
    }
    // "a" recorded again: its entry moves to the end, with the newest id.
    index.addCommitted(4, "o", "a");
    index.forgetBelow(3);
    expect(index.find("o", "b")).toBeUndefined();
    expect(index.find("o", "c")).toBe(3);
    expect(index.find("o", "a")).toBe(4);
    index.forgetBelow(undefined);
    expect(index.size).toBe(0);
    // The highest id seen stays: ids never go back.
    expect(index.lastId).toBe(4);
  });
});
