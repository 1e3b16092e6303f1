/** The write rules, case by case: planWrites on the entries and key records a store read. */
import { describe, expect, it } from "vitest";
import type { InventoryItem } from "../../../src/api/types.js";
import {
  IDEMPOTENCY_TTL_MS,
  type StoredResponse,
  type UpdateOptions,
  type WriteOutcome,
} from "../../../src/server/store/store.js";
import {
  isUnexpired,
  keyId,
  planWrites,
  type KeyRecord,
  type PlannedWrite,
} from "../../../src/server/store/write-plan.js";

const render = (outcome: WriteOutcome): StoredResponse =>
  outcome.kind === "updated"
    ? { status: 200, body: `q=${outcome.item.quantity}`, etag: `"${outcome.item.quantity}"` }
    : { status: outcome.kind === "not_found" ? 404 : 412, body: outcome.kind, etag: null };

const entry = (petId: bigint, quantity: number): [bigint, InventoryItem] => [
  petId,
  { petId, quantity, status: "available" },
];

const write = (petId: bigint, quantity: number, options: UpdateOptions = {}): PlannedWrite => ({
  kind: "update",
  petId,
  quantity,
  options,
});

const onQuantity = (...quantities: number[]) => ({
  condition: { kind: "quantity_in", quantities } as const,
});

const T0 = Date.UTC(2026, 0, 1);

const claim = (key: string, fingerprint: string, owner = "o", at = T0) => ({
  idempotency: { owner, key, fingerprint, at, render },
});

const absent = (key: string, owner = "o"): [string, KeyRecord] => [
  keyId(owner, key),
  { kind: "absent" },
];

const recorded = (
  key: string,
  fingerprint: string,
  at: number,
  response: StoredResponse,
): [string, KeyRecord] => [keyId("o", key), { kind: "recorded", fingerprint, at, response }];

describe("planWrites: conditions and order", () => {
  it("plans one history record per write, in order, with the quantity before and the author", () => {
    const author = (at: number) => ({
      author: { at, keyName: "k", requestId: `r${at}`, reason: null },
    });
    const plan = planWrites(
      [
        write(1n, 10, author(1)),
        write(1n, 11, { ...onQuantity(3), ...author(2) }),
        write(1n, 12, author(3)),
        write(404n, 1, author(4)),
        write(2n, 5, { ...claim("k", "f"), ...author(5) }),
        write(2n, 5, { ...claim("k", "f"), ...author(6) }),
      ],
      {
        entries: new Map([entry(1n, 3), entry(2n, 0)]),
        keys: new Map([absent("k")]),
        refs: new Set(),
      },
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
    const plan = planWrites(
      [
        write(1n, 10, onQuantity(3)),
        write(1n, 11, onQuantity(3)),
        write(1n, 12, onQuantity(10)),
        write(2n, 5),
        write(404n, 1),
      ],
      { entries: new Map([entry(1n, 3), entry(2n, 0)]), keys: new Map(), refs: new Set() },
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

  it("matches `exists` on any entry, and answers not_found for an unknown pet whatever the condition", () => {
    const exists = { condition: { kind: "exists" } as const };
    const plan = planWrites(
      [write(1n, 4, exists), write(404n, 4, exists), write(404n, 4, onQuantity(0))],
      { entries: new Map([entry(1n, 3)]), keys: new Map(), refs: new Set() },
    );
    expect(plan.results).toEqual([
      { kind: "updated", item: { petId: 1n, quantity: 4, status: "available" } },
      { kind: "not_found" },
      { kind: "not_found" },
    ]);
    expect(plan.changes).toHaveLength(1);
  });

  it("matches nothing with an empty list of quantities, and answers the entry as it stands", () => {
    const plan = planWrites([write(1n, 9), write(1n, 4, onQuantity())], {
      entries: new Map([entry(1n, 3)]),
      keys: new Map(),
      refs: new Set(),
    });
    expect(plan.results[1]).toEqual({
      kind: "precondition_failed",
      current: { petId: 1n, quantity: 9, status: "available" },
    });
    expect([...plan.quantities]).toEqual([[1n, 9]]);
  });

  it("changes nothing it was given: the state read stays as read", () => {
    const entries = new Map([entry(1n, 3)]);
    const keys = new Map([absent("k")]);
    planWrites([write(1n, 8, claim("k", "f"))], { entries, keys, refs: new Set() });
    expect(entries.get(1n)?.quantity).toBe(3);
    expect(keys.get(keyId("o", "k"))).toEqual({ kind: "absent" });
  });
});

describe("planWrites: idempotency keys", () => {
  it("applies a key without a record once, replays it to a later use, and refuses another request", () => {
    const plan = planWrites(
      [write(1n, 7, claim("k", "f")), write(1n, 7, claim("k", "f")), write(1n, 8, claim("k", "g"))],
      { entries: new Map([entry(1n, 3)]), keys: new Map([absent("k")]), refs: new Set() },
    );
    expect(plan.results).toEqual([
      { kind: "updated", item: { petId: 1n, quantity: 7, status: "available" } },
      { kind: "replayed", response: { status: 200, body: "q=7", etag: '"7"' } },
      { kind: "key_reused" },
    ]);
    expect(plan.answers).toEqual([
      {
        owner: "o",
        key: "k",
        fingerprint: "f",
        at: T0,
        response: { status: 200, body: "q=7", etag: '"7"' },
      },
    ]);
    expect([...plan.quantities]).toEqual([[1n, 7]]);
  });

  it("replays an unexpired record and writes nothing for it", () => {
    const response = { status: 412, body: "earlier", etag: '"1"' };
    const plan = planWrites([write(1n, 9, claim("k", "f"))], {
      entries: new Map([entry(1n, 3)]),
      keys: new Map([recorded("k", "f", T0 - 1000, response)]),
      refs: new Set(),
    });
    expect(plan.results).toEqual([{ kind: "replayed", response }]);
    expect(plan.quantities.size).toBe(0);
    expect(plan.changes).toEqual([]);
    expect(plan.answers).toEqual([]);
  });

  it("refuses an unexpired record's key for another request, writing nothing", () => {
    const plan = planWrites([write(1n, 9, claim("k", "other"))], {
      entries: new Map([entry(1n, 3)]),
      keys: new Map([recorded("k", "f", T0 - 1000, { status: 200, body: "", etag: null })]),
      refs: new Set(),
    });
    expect(plan.results).toEqual([{ kind: "key_reused" }]);
    expect(plan.quantities.size).toBe(0);
    expect(plan.answers).toEqual([]);
  });

  it("applies a key whose record has expired, whatever request it kept, and keeps the new answer in its place", () => {
    const old = { status: 200, body: "old", etag: null };
    for (const fingerprint of ["f", "other"]) {
      const plan = planWrites([write(1n, 9, claim("k", fingerprint))], {
        entries: new Map([entry(1n, 3)]),
        keys: new Map([recorded("k", "f", T0 - IDEMPOTENCY_TTL_MS, old)]),
        refs: new Set(),
      });
      expect(plan.results).toEqual([
        { kind: "updated", item: { petId: 1n, quantity: 9, status: "available" } },
      ]);
      expect(plan.answers).toMatchObject([{ key: "k", fingerprint, at: T0 }]);
    }
  });

  it("counts a record as unexpired until exactly the TTL has passed", () => {
    expect(isUnexpired(T0, T0)).toBe(true);
    expect(isUnexpired(T0 - IDEMPOTENCY_TTL_MS + 1, T0)).toBe(true);
    expect(isUnexpired(T0 - IDEMPOTENCY_TTL_MS, T0)).toBe(false);
  });

  it("keeps 404 and 412 outcomes with their keys, and replays them", () => {
    const plan = planWrites(
      [
        write(404n, 1, claim("a", "f")),
        write(1n, 5, { ...claim("b", "f"), ...onQuantity(0) }),
        write(404n, 1, claim("a", "f")),
      ],
      {
        entries: new Map([entry(1n, 3)]),
        keys: new Map([absent("a"), absent("b")]),
        refs: new Set(),
      },
    );
    expect(plan.results.map((result) => result.kind)).toEqual([
      "not_found",
      "precondition_failed",
      "replayed",
    ]);
    expect(plan.answers.map((answer) => [answer.key, answer.response.status])).toEqual([
      ["a", 404],
      ["b", 412],
    ]);
    expect(plan.changes).toEqual([]);
  });

  it("keeps keys apart per owner", () => {
    const plan = planWrites(
      [write(1n, 5, claim("k", "f", "alice")), write(1n, 6, claim("k", "g", "bob"))],
      {
        entries: new Map([entry(1n, 3)]),
        keys: new Map([absent("k", "alice"), absent("k", "bob")]),
        refs: new Set(),
      },
    );
    expect(plan.results.map((result) => result.kind)).toEqual(["updated", "updated"]);
    expect(plan.answers.map((answer) => answer.owner)).toEqual(["alice", "bob"]);
  });

  it("throws rather than guess when a key's record was not read", () => {
    expect(() =>
      planWrites([write(1n, 1, claim("k", "f"))], {
        entries: new Map(),
        keys: new Map(),
        refs: new Set(),
      }),
    ).toThrow(/record was not read/);
  });
});
