/** The write rules, case by case: planWrites on the entries and key records a store read. */
import { describe, expect, it } from "vitest";
import type { BatchChange, InventoryItem } from "../../../src/api/types.js";
import {
  IDEMPOTENCY_TTL_MS,
  type BatchEvaluation,
  type BatchOptions,
  type StoredResponse,
  type UpdateOptions,
  type WriteOutcome,
} from "../../../src/server/store/store.js";
import {
  RefSet,
  commonPrefix,
  countsOf,
  isUnexpired,
  keyId,
  planWrites,
  withSeqs,
  type KeyRecord,
  type PlannedResult,
  type PetRef,
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
  seq: bigint | null = null,
): [string, KeyRecord] => [keyId("o", key), { kind: "recorded", fingerprint, at, response, seq }];

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
      { kind: "replayed", response: { status: 200, body: "q=7", etag: '"7"' }, seq: null },
      { kind: "key_reused" },
    ]);
    expect(plan.answers).toEqual([
      {
        owner: "o",
        key: "k",
        fingerprint: "f",
        at: T0,
        response: { status: 200, body: "q=7", etag: '"7"' },
        changesThrough: 1,
      },
    ]);
    expect([...plan.quantities]).toEqual([[1n, 7]]);
  });

  it("gives a replay the seq its answer was kept with: a record's, or, kept in this group, that write's", () => {
    const plan = planWrites(
      [
        write(2n, 1, claim("old", "f")),
        write(1n, 7, claim("k", "f")),
        write(2n, 5),
        write(1n, 7, claim("k", "f")),
        write(2n, 1, claim("older", "f")),
      ],
      {
        entries: new Map([entry(1n, 3), entry(2n, 0)]),
        keys: new Map([
          recorded("old", "f", T0 - 1000, { status: 200, body: "", etag: null }, 40n),
          absent("k"),
          recorded("older", "f", T0 - 1000, { status: 200, body: "", etag: null }),
        ]),
        refs: [],
      },
    );
    expect(plan.answers.map((answer) => [answer.key, answer.changesThrough])).toEqual([["k", 1]]);
    // Written as seqs 51 (pet 1) and 52 (pet 2), after the latest seq read, 50.
    const results = withSeqs(plan, (index) => 51n + BigInt(index), 50n);
    expect(results.map((result) => [result.kind, "seq" in result ? result.seq : "none"])).toEqual([
      ["replayed", 40n],
      ["updated", 51n],
      ["updated", 52n],
      ["replayed", 51n],
      ["replayed", null],
    ]);
  });

  it("replays an unexpired record and writes nothing for it", () => {
    const response = { status: 412, body: "earlier", etag: '"1"' };
    const plan = planWrites([write(1n, 9, claim("k", "f"))], {
      entries: new Map([entry(1n, 3)]),
      keys: new Map([recorded("k", "f", T0 - 1000, response)]),
      refs: new Set(),
    });
    expect(plan.results).toEqual([{ kind: "replayed", response, seq: null }]);
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

describe("planWrites: batches", () => {
  const batch = (
    changes: BatchChange[],
    flags: { atomic?: boolean; dryRun?: boolean } = {},
    options: BatchOptions = {},
  ): PlannedWrite => ({
    kind: "batch",
    batch: { atomic: flags.atomic ?? false, dryRun: flags.dryRun ?? false, changes },
    options,
  });
  const outcomes = (result: PlannedResult | undefined) =>
    result?.kind === "evaluated" ? result.results.map((change) => change.outcome) : result?.kind;
  const state = (refs: PetRef[] = []) => ({
    entries: new Map([entry(1n, 3), entry(2n, 0)]),
    keys: new Map<string, KeyRecord>(),
    refs,
  });

  it("decides each change on the ones before it: deltas add up, below 0 and above the maximum fail alone", () => {
    const plan = planWrites(
      [
        batch([
          { petId: 1n, delta: -2 },
          { petId: 1n, delta: -2 },
          { petId: 1n, delta: 2 },
          { petId: 2n, delta: 2147483647 },
          { petId: 2n, delta: 1 },
          { petId: 2n, quantity: 1 },
        ]),
      ],
      state(),
    );
    expect(plan.results[0]).toEqual({
      kind: "evaluated",
      rejected: false,
      results: [
        { petId: 1n, outcome: "changed", previous: 3, quantity: 1, status: "available" },
        { petId: 1n, outcome: "below_zero", previous: 1, quantity: 1, status: "available" },
        { petId: 1n, outcome: "changed", previous: 1, quantity: 3, status: "available" },
        { petId: 2n, outcome: "changed", previous: 0, quantity: 2147483647, status: "available" },
        {
          petId: 2n,
          outcome: "too_large",
          previous: 2147483647,
          quantity: 2147483647,
          status: "available",
        },
        { petId: 2n, outcome: "changed", previous: 2147483647, quantity: 1, status: "available" },
      ],
    });
    expect(plan.changes.map((change) => [change.petId, change.previous, change.quantity])).toEqual([
      [1n, 3, 1],
      [1n, 1, 3],
      [2n, 0, 2147483647],
      [2n, 2147483647, 1],
    ]);
    expect([...plan.quantities]).toEqual([
      [1n, 3],
      [2n, 1],
    ]);
  });

  it("sets to the quantity held are unchanged, with no history record (a PATCH still keeps one)", () => {
    const plan = planWrites([batch([{ petId: 1n, quantity: 3 }]), write(1n, 3)], state());
    expect(outcomes(plan.results[0])).toEqual(["unchanged"]);
    expect(plan.results[1]).toMatchObject({ kind: "updated" });
    expect(plan.changes).toHaveLength(1);
  });

  it("compares ifQuantity with the entry as the changes before left it", () => {
    const plan = planWrites(
      [
        batch([
          { petId: 1n, quantity: 5, ifQuantity: 3 },
          { petId: 1n, quantity: 6, ifQuantity: 3 },
          { petId: 1n, delta: 1, ifQuantity: 5 },
          { petId: 404n, delta: 1, ifQuantity: 0 },
        ]),
      ],
      state(),
    );
    expect(outcomes(plan.results[0])).toEqual(["changed", "conflict", "changed", "not_found"]);
  });

  it("a ref applied before, or earlier in the group, is duplicate; refs are per pet; a failed change keeps none", () => {
    const plan = planWrites(
      [
        batch([
          { petId: 1n, delta: -1, ref: "old" },
          { petId: 1n, delta: -1, ref: "new" },
          { petId: 1n, delta: -1, ref: "new" },
          { petId: 2n, delta: 1, ref: "new" },
          { petId: 2n, delta: -9, ref: "failed" },
        ]),
        batch([
          { petId: 2n, delta: 1, ref: "new" },
          { petId: 2n, delta: 1, ref: "failed" },
        ]),
      ],
      state([{ petId: 1n, ref: "old" }]),
    );
    expect(outcomes(plan.results[0])).toEqual([
      "duplicate",
      "changed",
      "duplicate",
      "changed",
      "below_zero",
    ]);
    expect(outcomes(plan.results[1])).toEqual(["duplicate", "changed"]);
    expect(plan.changes.map((change) => change.ref)).toEqual(["new", "new", "failed"]);
  });

  it("the refs and the net of the writes kept before reach every later write of the group", () => {
    const plan = planWrites(
      [
        batch([{ petId: 1n, delta: -1, ref: "a" }]),
        batch([
          { petId: 1n, delta: 2, ref: "a" },
          { petId: 1n, delta: 2, ref: "b" },
        ]),
        batch([
          { petId: 1n, delta: 5, ref: "b" },
          { petId: 1n, count: 10, asOf: 7n, ref: "c" },
        ]),
      ],
      { ...state(), latestSeq: 7n },
    );
    expect(outcomes(plan.results[0])).toEqual(["changed"]);
    expect(outcomes(plan.results[1])).toEqual(["duplicate", "changed"]);
    expect(outcomes(plan.results[2])).toEqual(["duplicate", "changed"]);
    // The count is as of seq 7: the group's -1 and +2 came after it, so 10 + 1.
    const [, counted] = plan.results[2]?.kind === "evaluated" ? plan.results[2].results : [];
    expect(counted).toMatchObject({ book: 3, since: 1, counted: 10, quantity: 11 });
  });

  it("an atomic batch with a failure and a dry run leave nothing for the writes after them", () => {
    const plan = planWrites(
      [
        batch(
          [
            { petId: 1n, delta: -1, ref: "a" },
            { petId: 404n, delta: 1 },
          ],
          { atomic: true },
        ),
        batch([{ petId: 1n, delta: -1, ref: "b" }], { dryRun: true }),
        batch(
          [
            { petId: 1n, delta: -1, ref: "a" },
            { petId: 1n, delta: -1, ref: "b" },
          ],
          {
            atomic: true,
          },
        ),
      ],
      state(),
    );
    expect(plan.results.map((result) => result.kind === "evaluated" && result.rejected)).toEqual([
      true,
      false,
      false,
    ]);
    expect(outcomes(plan.results[0])).toEqual(["changed", "not_found"]);
    expect(outcomes(plan.results[1])).toEqual(["changed"]);
    expect(outcomes(plan.results[2])).toEqual(["changed", "changed"]);
    expect(plan.changes.map((change) => [change.ref, change.previous])).toEqual([
      ["a", 3],
      ["b", 2],
    ]);
  });

  it("keeps a batch's answer for its key, but not a dry run's, which still replays an earlier answer", () => {
    const renderBatch = (evaluation: BatchEvaluation): StoredResponse => ({
      status: evaluation.rejected ? 409 : 200,
      body: evaluation.results.map((result) => result.outcome).join(),
      etag: null,
    });
    const keyed = (key: string, fingerprint: string): BatchOptions => ({
      idempotency: { owner: "o", key, fingerprint, at: T0, render: renderBatch },
    });
    const plan = planWrites(
      [
        batch([{ petId: 1n, delta: 1 }], { dryRun: true }, keyed("d", "f")),
        batch([{ petId: 1n, delta: 1 }], {}, keyed("k", "f")),
        batch([{ petId: 1n, delta: 1 }], {}, keyed("k", "f")),
        batch([{ petId: 1n, delta: 1 }], { dryRun: true }, keyed("k", "g")),
      ],
      { ...state(), keys: new Map([absent("d"), absent("k")]) },
    );
    expect(plan.results.map((result) => result.kind)).toEqual([
      "evaluated",
      "evaluated",
      "replayed",
      "key_reused",
    ]);
    expect(plan.answers.map((answer) => [answer.key, answer.response.body])).toEqual([
      ["k", "changed"],
    ]);
    expect([...plan.quantities]).toEqual([[1n, 4]]);
  });
});

describe("countsOf: the (pet, asOf) pairs a store reads the net since for", () => {
  const counts = (changes: BatchChange[]): PlannedWrite => ({
    kind: "batch",
    batch: { atomic: true, dryRun: false, changes },
    options: {},
  });
  const writes = [
    counts([
      { petId: 1n, count: 4, asOf: 10n },
      { petId: 2n, quantity: 3 },
      { petId: 1n, count: 5, asOf: 10n },
      { petId: 1n, count: 6, asOf: 12n },
    ]),
    counts([
      { petId: 1n, count: 7, asOf: 12n },
      { petId: 3n, count: 1, asOf: 10n },
      { petId: 1n, count: 8, asOf: 9n },
    ]),
    write(4n, 1),
  ];

  it("names each pair once, in the order first asked, and no set or update", () => {
    expect(countsOf(writes)).toEqual([
      { petId: 1n, asOf: 10n },
      { petId: 1n, asOf: 12n },
      { petId: 3n, asOf: 10n },
      { petId: 1n, asOf: 9n },
    ]);
  });

  it("leaves out the pairs the store knows have not moved", () => {
    expect(countsOf(writes, (petId, asOf) => petId === 1n && asOf < 12n)).toEqual([
      { petId: 1n, asOf: 10n },
      { petId: 1n, asOf: 9n },
    ]);
  });
});

describe("RefSet: the (pet, ref) pairs applied", () => {
  it("holds a ref per pet: another pet's same ref is another pair", () => {
    const refs = new RefSet([
      { petId: 1n, ref: "a" },
      { petId: 2n, ref: "a" },
      { petId: 1n, ref: "a" },
    ]);
    refs.add(3n, "a");
    refs.add(1n, "b");
    expect(refs.isEmpty).toBe(false);
    expect([refs.has(1n, "a"), refs.has(2n, "a"), refs.has(3n, "a"), refs.has(4n, "a")]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect([refs.has(1n, "b"), refs.has(2n, "b"), refs.has(1n, "c")]).toEqual([true, false, false]);
    expect([...refs]).toEqual([
      { petId: 1n, ref: "a" },
      { petId: 2n, ref: "a" },
      { petId: 3n, ref: "a" },
      { petId: 1n, ref: "b" },
    ]);
    expect(new RefSet().isEmpty).toBe(true);
  });
});

describe("commonPrefix: what a batch's refs all start with", () => {
  it("is the longest prefix every one starts with, or none", () => {
    expect(commonPrefix([])).toBe("");
    expect(commonPrefix(["count:s1:42"])).toBe("count:s1:42");
    expect(commonPrefix(["count:s1:42", "count:s1:43", "count:s1:4"])).toBe("count:s1:4");
    expect(commonPrefix(["count:s1:4", "count:s1:42"])).toBe("count:s1:4");
    expect(commonPrefix(["sale:1", "sale:1"])).toBe("sale:1");
    expect(commonPrefix(["a:1", "b:1"])).toBe("");
    expect(commonPrefix(["b:1", "a:1", "b:2"])).toBe("");
  });
});
