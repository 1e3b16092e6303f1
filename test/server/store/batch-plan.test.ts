import { describe, expect, it } from "vitest";
import type { InventoryItem } from "../../../src/api/types.js";
import {
  keyId,
  planBatch,
  type BatchUpdate,
  type KeyState,
} from "../../../src/server/store/batch-plan.js";
import type { StoredResponse, WriteOutcome } from "../../../src/server/store/store.js";

const render = (outcome: WriteOutcome): StoredResponse =>
  outcome.kind === "updated"
    ? { status: 200, body: `q=${outcome.item.quantity}`, etag: `"${outcome.item.quantity}"` }
    : { status: outcome.kind === "not_found" ? 404 : 412, body: outcome.kind, etag: null };

const entry = (petId: bigint, quantity: number): [bigint, InventoryItem] => [
  petId,
  { petId, quantity, status: "available" },
];

const update = (petId: bigint, quantity: number, more: BatchUpdate["options"] = {}) => ({
  petId,
  quantity,
  options: more,
});

const onQuantity = (...quantities: number[]) => ({
  condition: { kind: "quantity_in", quantities } as const,
});

const claim = (key: string, fingerprint: string) => ({
  idempotency: { owner: "o", key, fingerprint, at: 0, render },
});

describe("planBatch", () => {
  it("plans one history record per write, in order, with the quantity before and the author", () => {
    const author = (at: number) => ({
      author: { at, keyName: "k", requestId: `r${at}`, reason: null },
    });
    const plan = planBatch(
      [
        update(1n, 10, author(1)),
        update(1n, 11, { ...onQuantity(3), ...author(2) }),
        update(1n, 12, author(3)),
        update(404n, 1, author(4)),
        update(2n, 5, { ...claim("k", "f"), ...author(5) }),
        update(2n, 5, { ...claim("k", "f"), ...author(6) }),
      ],
      new Map([entry(1n, 3), entry(2n, 0)]),
      new Map([[keyId("o", "k"), { kind: "claimed" }]]),
    );
    expect(
      plan.changes.map((change) => [
        change.petId,
        change.previous,
        change.quantity,
        change.author.at,
      ]),
    ).toEqual([
      [1n, 3, 10, 1],
      [1n, 10, 12, 3],
      [2n, 0, 5, 5],
    ]);
  });

  it("checks each condition against the writes before it, and writes each entry's last quantity", () => {
    const plan = planBatch(
      [
        update(1n, 10, onQuantity(3)),
        update(1n, 11, onQuantity(3)),
        update(1n, 12, onQuantity(10)),
        update(2n, 5),
        update(404n, 1),
      ],
      new Map([entry(1n, 3), entry(2n, 0)]),
      new Map(),
    );
    expect(plan.results.map((result) => result.kind)).toEqual([
      "updated",
      "precondition_failed",
      "updated",
      "updated",
      "not_found",
    ]);
    expect(plan.results[1]).toMatchObject({ current: { quantity: 10 } });
    expect([...plan.quantities]).toEqual([
      [1n, 12],
      [2n, 5],
    ]);
    expect(plan.answers).toEqual([]);
  });

  it("applies a key claimed by the batch once, replays it to a later use, and refuses another request", () => {
    const plan = planBatch(
      [
        update(1n, 7, claim("k", "f")),
        update(1n, 7, claim("k", "f")),
        update(1n, 8, claim("k", "g")),
      ],
      new Map([entry(1n, 3)]),
      new Map<string, KeyState>([[keyId("o", "k"), { kind: "claimed" }]]),
    );
    expect(plan.results).toEqual([
      { kind: "updated", item: { petId: 1n, quantity: 7, status: "available" } },
      { kind: "replayed", response: { status: 200, body: "q=7", etag: '"7"' } },
      { kind: "key_reused" },
    ]);
    expect(plan.answers).toEqual([
      { owner: "o", key: "k", response: { status: 200, body: "q=7", etag: '"7"' } },
    ]);
    expect([...plan.quantities]).toEqual([[1n, 7]]);
  });

  it("replays a kept record and writes nothing for it", () => {
    const kept: KeyState = {
      kind: "kept",
      fingerprint: "f",
      response: { status: 412, body: "earlier", etag: '"1"' },
    };
    const plan = planBatch(
      [update(1n, 9, claim("k", "f"))],
      new Map([entry(1n, 3)]),
      new Map([[keyId("o", "k"), kept]]),
    );
    expect(plan.results).toEqual([{ kind: "replayed", response: kept.response }]);
    expect(plan.quantities.size).toBe(0);
    expect(plan.answers).toEqual([]);
  });

  it("throws rather than guess when a key's state was not read", () => {
    expect(() => planBatch([update(1n, 1, claim("k", "f"))], new Map(), new Map())).toThrow(
      /no state for a key/,
    );
  });
});
