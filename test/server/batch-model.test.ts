/**
 * POST /v1/inventory/batch against a model: random sequences of batches (sets and deltas on
 * known and unknown pets, `ifQuantity`, refs from a small pool, atomic, dry run, keys used
 * again) sent to the real app, each answer compared with what a plain model of the rules in
 * docs/api.md says, and the inventory and history compared after every batch. The seed is
 * printed; BATCH_MODEL_SEED=<n> replays a run.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AUTH, createTestApp, type TestApp } from "./fixture.js";

const SEED = Number(process.env.BATCH_MODEL_SEED ?? 20261125);
const MAX = 2147483647;

interface Change {
  petId: number;
  quantity?: number;
  delta?: number;
  ifQuantity?: number;
  ref?: string;
}
interface Batch {
  atomic: boolean;
  dryRun: boolean;
  changes: Change[];
  key?: string | undefined;
}

const change: fc.Arbitrary<Change> = fc
  .record(
    {
      petId: fc.constantFrom(1, 2, 404),
      set: fc.boolean(),
      quantity: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(MAX)),
      delta: fc.oneof(
        fc.integer({ min: -4, max: 4 }).filter((delta) => delta !== 0),
        fc.constant(MAX),
      ),
      ifQuantity: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
      ref: fc.option(fc.constantFrom("a", "b", "c", "till:1"), { nil: undefined }),
    },
    { requiredKeys: ["petId", "set", "quantity", "delta"] },
  )
  .map(({ petId, set, quantity, delta, ifQuantity, ref }) => ({
    petId,
    ...(set ? { quantity } : { delta }),
    ...(ifQuantity === undefined ? {} : { ifQuantity }),
    ...(ref === undefined ? {} : { ref }),
  }));

const batch: fc.Arbitrary<Batch> = fc.record(
  {
    atomic: fc.boolean(),
    dryRun: fc.boolean(),
    changes: fc.array(change, { minLength: 1, maxLength: 6 }),
    key: fc.option(fc.constantFrom("k1", "k2"), { nil: undefined }),
  },
  { requiredKeys: ["atomic", "dryRun", "changes"] },
);

/** The rules, written plainly: the store as a map, refs as a set of "petId ref". */
class Model {
  quantities = new Map<number, number>([
    [1, 3],
    [2, 0],
  ]);
  refs = new Set<string>();
  history = new Map<number, number>([
    [1, 1],
    [2, 1],
  ]);
  keys = new Map<string, { body: string; answer: { status: number; body: unknown } }>();

  apply(request: Batch): { status: number; body: unknown; replayed: boolean } {
    const body = JSON.stringify({ ...request, key: undefined });
    const kept = request.key === undefined ? undefined : this.keys.get(request.key);
    if (kept) {
      return kept.body === body
        ? { ...kept.answer, replayed: true }
        : { status: 422, body: { code: "idempotency_key_reused" }, replayed: false };
    }
    const quantities = new Map(this.quantities);
    const refs = new Set(this.refs);
    const history = new Map(this.history);
    const results = request.changes.map((c) => {
      const now = quantities.get(c.petId);
      if (now === undefined) {
        return { petId: c.petId, outcome: "not_found", previous: null, quantity: null };
      }
      const result = (outcome: string, quantity = now) => ({
        petId: c.petId,
        outcome,
        previous: now,
        quantity,
      });
      if (c.ref !== undefined && refs.has(`${c.petId} ${c.ref}`)) return result("duplicate");
      if (c.ifQuantity !== undefined && c.ifQuantity !== now) return result("conflict");
      const next = c.quantity ?? now + (c.delta ?? 0);
      if (next < 0) return result("below_zero");
      if (next > MAX) return result("too_large");
      if (next === now) return result("unchanged");
      quantities.set(c.petId, next);
      history.set(c.petId, (history.get(c.petId) ?? 0) + 1);
      if (c.ref !== undefined) refs.add(`${c.petId} ${c.ref}`);
      return result("changed", next);
    });
    const failed = results.filter((r) =>
      ["conflict", "not_found", "below_zero", "too_large"].includes(r.outcome),
    ).length;
    const changed = results.filter((r) => r.outcome === "changed").length;
    const rejected = request.atomic && failed > 0;
    if (!rejected && !request.dryRun) {
      this.quantities = quantities;
      this.refs = refs;
      this.history = history;
    }
    const answer = rejected
      ? { status: 409, body: { code: "batch_rejected", results } }
      : {
          status: 200,
          body: { changed, unchanged: results.length - changed - failed, failed, results },
        };
    if (request.key !== undefined && !request.dryRun) this.keys.set(request.key, { body, answer });
    return { ...answer, replayed: false };
  }
}

describe("POST /v1/inventory/batch against a model of its rules", () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(() => t.close());

  it("answers every random sequence of batches as the model does, and leaves what it says", async () => {
    console.log(`batch model seed ${SEED} (replay with BATCH_MODEL_SEED=${SEED})`);
    await fc.assert(
      fc.asyncProperty(fc.array(batch, { minLength: 1, maxLength: 8 }), async (batches) => {
        await t.close();
        t = await createTestApp();
        const model = new Model();
        for (const request of batches) {
          const expected = model.apply(request);
          const { key, ...body } = request;
          const response = await t.app.inject({
            method: "POST",
            url: "/v1/inventory/batch",
            headers: { ...AUTH, ...(key === undefined ? {} : { "idempotency-key": key }) },
            payload: body,
          });
          expect(response.statusCode).toBe(expected.status);
          expect(response.json()).toMatchObject(expected.body as object);
          expect(response.headers["idempotent-replayed"]).toBe(
            expected.replayed ? "true" : undefined,
          );
          for (const petId of [1, 2]) {
            const entry = await t.app.inject({ url: `/v1/inventory/${petId}`, headers: AUTH });
            expect(entry.json<{ quantity: number }>().quantity).toBe(model.quantities.get(petId));
            const history = await t.app.inject({
              url: `/v1/inventory/${petId}/history?limit=1000`,
              headers: AUTH,
            });
            expect(history.json<unknown[]>()).toHaveLength(model.history.get(petId) ?? 0);
          }
        }
      }),
      { seed: SEED, numRuns: 60 },
    );
  }, 60_000);
});
