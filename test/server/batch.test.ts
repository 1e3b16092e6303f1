/** POST /v1/inventory/batch through app.inject(): every answer, and what it leaves behind. */
import Database from "better-sqlite3";
import type { LightMyRequestResponse } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectError } from "./expect-error.js";
import {
  AUTH,
  MAX_ID,
  READ_AUTH,
  createLockedTestApp,
  createTestApp,
  type LockedTestApp,
  type TestApp,
} from "./fixture.js";

let t: TestApp;
const NOW = Date.UTC(2026, 10, 25, 9, 0, 0);
beforeEach(async () => {
  t = await createTestApp({ clock: () => NOW });
});
afterEach(() => t.close());

const batch = (
  body: unknown,
  headers: Record<string, string> = {},
  app: TestApp = t,
): Promise<LightMyRequestResponse> =>
  app.app.inject({
    method: "POST",
    url: "/v1/inventory/batch",
    headers: { ...AUTH, "content-type": "application/json", ...headers },
    payload: typeof body === "string" ? body : JSON.stringify(body),
  });

const quantities = async () => (await t.app.inject({ url: "/v1/inventory", headers: AUTH })).body;

const historyOf = async (petId: string) =>
  (await t.app.inject({ url: `/v1/inventory/${petId}/history`, headers: AUTH })).json<
    { previous: number | null; quantity: number; ref: string | null; reason: string | null }[]
  >();

/** A 400 whose message names the field, with nothing changed. */
async function expectRefused(body: unknown, status: number, code: string, message: RegExp) {
  const before = await quantities();
  const response = await batch(body);
  expectError(response, status, code);
  expect(response.json<{ message: string }>().message).toMatch(message);
  expect(await quantities()).toBe(before);
}

describe("POST /v1/inventory/batch: outcomes", () => {
  it("applies sets and deltas in order, each seeing the ones before, with a result per change", async () => {
    const response = await batch(
      '{"changes":[{"petId":1,"quantity":10},{"petId":1,"delta":-4},{"petId":1,"delta":-2},' +
        `{"petId":2,"quantity":0},{"petId":${MAX_ID},"delta":1,"ifQuantity":5}]}`,
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.body).toBe(
      '{"changed":4,"unchanged":1,"failed":0,"results":[' +
        '{"petId":1,"outcome":"changed","previous":3,"quantity":10,"status":"available"},' +
        '{"petId":1,"outcome":"changed","previous":10,"quantity":6,"status":"available"},' +
        '{"petId":1,"outcome":"changed","previous":6,"quantity":4,"status":"available"},' +
        '{"petId":2,"outcome":"unchanged","previous":0,"quantity":0,"status":"sold"},' +
        `{"petId":${MAX_ID},"outcome":"changed","previous":5,"quantity":6,"status":"pending"}]}`,
    );
    expect(await quantities()).toBe(
      `[{"petId":1,"quantity":4,"status":"available"},{"petId":2,"quantity":0,"status":"sold"},{"petId":${MAX_ID},"quantity":6,"status":"pending"}]`,
    );
    // One history record per applied change; none for the unchanged one.
    expect((await historyOf("1")).map((record) => record.quantity)).toEqual([4, 6, 10, 3]);
    expect(await historyOf("2")).toHaveLength(1);
  });

  it("reports each failure alone and applies the rest when not atomic", async () => {
    const response = await batch({
      changes: [
        { petId: 1, delta: -4 },
        { petId: 404, quantity: 1 },
        { petId: 1, quantity: 9, ifQuantity: 2 },
        { petId: 1, delta: 2147483647 },
        { petId: 1, delta: 1 },
      ],
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      changed: 1,
      unchanged: 0,
      failed: 4,
      results: [
        { petId: 1, outcome: "below_zero", previous: 3, quantity: 3, status: "available" },
        { petId: 404, outcome: "not_found", previous: null, quantity: null, status: null },
        { petId: 1, outcome: "conflict", previous: 3, quantity: 3, status: "available" },
        { petId: 1, outcome: "too_large", previous: 3, quantity: 3, status: "available" },
        { petId: 1, outcome: "changed", previous: 3, quantity: 4, status: "available" },
      ],
    });
  });

  it("keeps refs for good: a change whose (petId, ref) was applied comes back duplicate, another pet's applies", async () => {
    const sales = {
      changes: [
        { petId: 1, delta: -1, ref: "till-1:0001" },
        { petId: 1, delta: -1, ref: "till-1:0002" },
        { petId: 1, delta: -1, ref: "till-1:0001" },
      ],
    };
    const first = await batch(sales, { "x-change-reason": "sales 25 Nov" });
    expect(first.json<{ results: { outcome: string }[] }>().results.map((r) => r.outcome)).toEqual([
      "changed",
      "changed",
      "duplicate",
    ]);
    const second = await batch(sales);
    expect(second.json()).toMatchObject({ changed: 0, unchanged: 3, failed: 0 });
    expect(second.json<{ results: { outcome: string }[] }>().results.map((r) => r.outcome)).toEqual(
      ["duplicate", "duplicate", "duplicate"],
    );
    const other = await batch(`{"changes":[{"petId":${MAX_ID},"delta":-1,"ref":"till-1:0001"}]}`);
    expect(other.json()).toMatchObject({ changed: 1 });
    expect(await historyOf("1")).toMatchObject([
      { previous: 2, quantity: 1, ref: "till-1:0002", reason: "sales 25 Nov" },
      { previous: 3, quantity: 2, ref: "till-1:0001", reason: "sales 25 Nov" },
      { previous: null, quantity: 3, ref: null },
    ]);
  });

  it("does not keep the ref of a change that was not applied", async () => {
    await batch({ changes: [{ petId: 1, delta: -9, ref: "r1" }] });
    const retried = await batch({ changes: [{ petId: 1, delta: -1, ref: "r1" }] });
    expect(retried.json()).toMatchObject({ changed: 1 });
  });

  it("atomic: one failed change leaves state and history untouched; 409 batch_rejected with the results", async () => {
    const before = await quantities();
    const response = await batch({
      atomic: true,
      changes: [
        { petId: 1, delta: -1, ref: "a1" },
        { petId: 404, delta: -1 },
      ],
    });
    expect(response.statusCode).toBe(409);
    const body = response.json<Record<string, unknown>>();
    expect(Object.keys(body).sort()).toEqual(["code", "message", "results", "status"]);
    expect(body).toMatchObject({
      code: "batch_rejected",
      status: 409,
      message: "1 of 2 changes failed (see results); the batch is atomic, so nothing was changed",
      results: [
        { petId: 1, outcome: "changed", previous: 3, quantity: 2, status: "available" },
        { petId: 404, outcome: "not_found", previous: null, quantity: null, status: null },
      ],
    });
    expect(await quantities()).toBe(before);
    expect(await historyOf("1")).toHaveLength(1);
    // Its ref was not kept: the same change applies once the batch is fixed.
    const fixed = await batch({ atomic: true, changes: [{ petId: 1, delta: -1, ref: "a1" }] });
    expect(fixed.json()).toMatchObject({ changed: 1, failed: 0 });
  });

  it("dryRun: evaluates exactly as it would apply and writes nothing (no history, no key record)", async () => {
    const before = await quantities();
    const body = {
      dryRun: true,
      changes: [
        { petId: 1, delta: -1, ref: "d1" },
        { petId: 1, delta: -1, ref: "d1" },
        { petId: 404, quantity: 2 },
      ],
    };
    const dry = await batch(body, { "idempotency-key": "dry-1" });
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toMatchObject({
      changed: 1,
      unchanged: 1,
      failed: 1,
      results: [
        { outcome: "changed", previous: 3, quantity: 2 },
        { outcome: "duplicate", previous: 2, quantity: 2 },
        { outcome: "not_found" },
      ],
    });
    expect(await quantities()).toBe(before);
    expect(await historyOf("1")).toHaveLength(1);
    // No record was kept for the key: the real run under the same key applies.
    const real = await batch({ ...body, dryRun: false }, { "idempotency-key": "dry-1" });
    expect(real.statusCode).toBe(200);
    expect(real.headers["idempotent-replayed"]).toBeUndefined();
    expect(real.json()).toMatchObject({ changed: 1, unchanged: 1, failed: 1 });
    const atomicDry = await batch({ ...body, atomic: true, changes: body.changes.slice(2) });
    expectRejected(atomicDry);
  });

  it("Idempotency-Key: a retry replays the answer (Idempotent-Replayed) and applies nothing twice; another batch under it is 422", async () => {
    const body = { changes: [{ petId: 1, delta: 5 }] };
    const first = await batch(body, { "idempotency-key": "k-1" });
    const replay = await batch('{ "changes" : [ { "delta": 5, "petId": 1 } ], "atomic": false }', {
      "idempotency-key": "k-1",
    });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.body).toBe(first.body);
    expect(await quantities()).toContain('{"petId":1,"quantity":8,');
    const reused = await batch({ changes: [{ petId: 1, delta: 6 }] }, { "idempotency-key": "k-1" });
    expectError(reused, 422, "idempotency_key_reused");
    expect(await quantities()).toContain('{"petId":1,"quantity":8,');
    // The key is the batch's, apart from PATCH's: a PATCH under it is another request.
    const patch = await t.app.inject({
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: { ...AUTH, "idempotency-key": "k-1" },
      payload: { quantity: 1 },
    });
    expectError(patch, 422, "idempotency_key_reused");
  });

  it("keeps the 409 of an atomic batch for its key: a retry replays the rejection", async () => {
    const body = { atomic: true, changes: [{ petId: 404, delta: 1 }] };
    const first = await batch(body, { "idempotency-key": "k-409" });
    const again = await batch(body, { "idempotency-key": "k-409" });
    expect(again.statusCode).toBe(409);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body).toBe(first.body);
  });

  it("keeps int64 petIds exact in and out", async () => {
    const response = await batch(`{"changes":[{"petId":${MAX_ID},"quantity":77}]}`);
    expect(response.body).toContain(`"petId":${MAX_ID},"outcome":"changed"`);
    expect(await quantities()).toContain(`{"petId":${MAX_ID},"quantity":77,`);
  });

  it("reads a number by its value, as PATCH does: 4.0 is 4, 1e1 is 10", async () => {
    const response = await batch(
      '{"changes":[{"petId":1,"quantity":4.0},{"petId":1e0,"delta":1e1}]}',
    );
    expect(response.json()).toMatchObject({ changed: 2, failed: 0 });
    expect(await quantities()).toContain('{"petId":1,"quantity":14,');
  });

  it("takes 10,000 changes in one request", async () => {
    const changes = Array.from({ length: 10_000 }, (_, i) => ({
      petId: 1,
      quantity: i,
    }));
    const response = await batch({ changes });
    // Each set differs from the one before it (the first from the seed's 3).
    expect(response.json()).toMatchObject({ changed: 10_000, unchanged: 0 });
    expect(await quantities()).toContain(`{"petId":1,"quantity":9999,`);
  });
});

function expectRejected(response: LightMyRequestResponse) {
  expect(response.statusCode).toBe(409);
  expect(response.json()).toMatchObject({ code: "batch_rejected", status: 409 });
}

describe("POST /v1/inventory/batch: refusals change nothing", () => {
  it.each([
    [
      {
        changes: [
          { petId: 1, quantity: 2 },
          { petId: 1, delta: 0 },
        ],
      },
      /^changes\[1\]\.delta must be a non-zero whole number/,
    ],
    [
      { changes: [{ petId: 1, quantity: 2, delta: 1 }] },
      /^changes\[0\] must have one of quantity .* not quantity and delta/,
    ],
    [{ changes: [{ petId: 1 }] }, /^changes\[0\] must have one of quantity .* not none/],
    [{ changes: [{ quantity: 1 }] }, /^changes\[0\]\.petId is required/],
    [
      { changes: [{ petId: 0, quantity: 1 }] },
      /^changes\[0\]\.petId must be a whole number from 1/,
    ],
    [{ changes: [{ petId: "1", quantity: 1 }] }, /^changes\[0\]\.petId must be a whole number/],
    [
      { changes: [{ petId: 1, quantity: -1 }] },
      /^changes\[0\]\.quantity must be a whole number from 0 to 2147483647/,
    ],
    [{ changes: [{ petId: 1, quantity: 2147483648 }] }, /^changes\[0\]\.quantity must be/],
    [{ changes: [{ petId: 1, quantity: 1.5 }] }, /^changes\[0\]\.quantity must be/],
    [{ changes: [{ petId: 1, delta: 2147483648 }] }, /^changes\[0\]\.delta must be/],
    [{ changes: [{ petId: 1, delta: 1, ifQuantity: -1 }] }, /^changes\[0\]\.ifQuantity must be/],
    [
      { changes: [{ petId: 1, delta: 1, ref: "" }] },
      /^changes\[0\]\.ref must be 1 to 128 visible ASCII/,
    ],
    [{ changes: [{ petId: 1, delta: 1, ref: "a b" }] }, /^changes\[0\]\.ref must be/],
    [{ changes: [{ petId: 1, delta: 1, ref: "x".repeat(129) }] }, /^changes\[0\]\.ref must be/],
    [{ changes: [{ petId: 1, delta: 1, ref: 7 }] }, /^changes\[0\]\.ref must be/],
    [
      { changes: [{ petId: 1, delta: 1, note: "x" }] },
      /^changes\[0\]\.note is not a field of a change/,
    ],
    [{ changes: [] }, /^changes must hold 1 to 10000 changes, got 0/],
    [{ changes: {} }, /^changes is required/],
    [{}, /^changes is required/],
    [[], /^the body must be an object/],
    [{ changes: [{ petId: 1, delta: 1 }], atomic: "yes" }, /^atomic must be true or false/],
    [{ changes: [{ petId: 1, delta: 1 }], dryrun: true }, /^dryrun is not a field of a batch/],
    [{ changes: [{ petId: 1, quantity: 5 }, 3] }, /^changes\[1\] must be an object/],
  ])("400 invalid_body for %j", async (body, message) => {
    await expectRefused(body, 400, "invalid_body", message);
  });

  it("400 invalid_body for a petId above int64, exact", async () => {
    await expectRefused(
      `{"changes":[{"petId":1,"quantity":1},{"petId":9223372036854775808,"quantity":1}]}`,
      400,
      "invalid_body",
      /^changes\[1\]\.petId must be a whole number from 1 to 9223372036854775807; nothing was changed$/,
    );
  });

  it("400 for more than 10,000 changes", async () => {
    const changes = Array.from({ length: 10_001 }, () => ({ petId: 1, delta: 1 }));
    await expectRefused({ changes }, 400, "invalid_body", /got 10001/);
  });

  it.each([
    ['{"changes":[{"petId":1,"quantity":2147483647.0000001}]}', /changes\[0\]\.quantity must be/],
    ['{"changes":[{"petId":1.0000000000000001,"delta":1}]}', /changes\[0\]\.petId must be/],
    ['{"changes":[{"petId":1,"delta":-25e-1}]}', /changes\[0\]\.delta must be/],
  ])("400 for a fraction JSON.parse would round to a whole number: %s", async (body, message) => {
    await expectRefused(body, 400, "invalid_body", message);
  });

  it("400 for a change that names a field twice, nothing changed", async () => {
    await expectRefused(
      '{"changes":[{"petId":1,"delta":1},{"petId":2,"quantity":6,"quantity":2}]}',
      400,
      "invalid_body",
      /^the body names "quantity" twice in one object: say it once$/,
    );
  });

  it("400 for JSON nested deeper than a parser's stack holds, not a 500", async () => {
    const depth = 50_000;
    await expectRefused(
      `{"changes":[{"petId":1,"delta":1,"ref":${"[".repeat(depth)}1.5${"]".repeat(depth)}}]}`,
      400,
      "invalid_body",
      /^the body is nested too deeply$/,
    );
  });

  it("400 invalid_json for a body that is not JSON", async () => {
    await expectRefused('{"changes": [', 400, "invalid_json", /not valid JSON/);
  });

  it("413 for a body over 2 MiB; PATCH keeps its 16 KiB limit", async () => {
    const body = `{"changes":[{"petId":1,"delta":1,"ref":"${"x".repeat(100)}"}],"pad":"${"y".repeat(2 * 1024 * 1024)}"}`;
    await expectRefused(body, 413, "payload_too_large", /./);
    const patch = await t.app.inject({
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: { ...AUTH, "content-type": "application/json" },
      payload: `{"quantity":1,"pad":"${"y".repeat(20_000)}"}`,
    });
    expectError(patch, 413, "payload_too_large");
  });

  it("a body of 1.9 MiB is read", async () => {
    const changes = Array.from({ length: 10_000 }, (_, i) => ({
      petId: 1,
      delta: 1,
      ref: `${String(i).padStart(6, "0")}:${"r".repeat(150)}`.slice(0, 128),
    }));
    const body = JSON.stringify({ changes });
    expect(body.length).toBeGreaterThan(1.3 * 1024 * 1024);
    expect(body.length).toBeLessThan(2 * 1024 * 1024);
    const response = await batch(body);
    expect(response.json()).toMatchObject({ changed: 10_000 });
  });

  it("400 for an empty body: invalid_json with a JSON content type, invalid_body with none", async () => {
    await expectRefused("", 400, "invalid_json", /not valid JSON/);
    const bare = await t.app.inject({ method: "POST", url: "/v1/inventory/batch", headers: AUTH });
    expectError(bare, 400, "invalid_body");
    expect(bare.json<{ message: string }>().message).toBe("a batch needs a JSON body");
  });

  it("415 for a body that is not JSON", async () => {
    const response = await batch("changes", { "content-type": "text/plain" });
    expectError(response, 415, "unsupported_media_type");
  });

  it("400 invalid_header for a malformed Idempotency-Key or X-Change-Reason", async () => {
    const body = { changes: [{ petId: 1, delta: 1 }] };
    expectError(await batch(body, { "idempotency-key": "a b" }), 400, "invalid_header");
    expectError(await batch(body, { "x-change-reason": "a\u0007" }), 400, "invalid_header");
    expect(await quantities()).toContain('{"petId":1,"quantity":3,');
  });

  it("401 without a key, 403 forbidden for a read key", async () => {
    const body = JSON.stringify({ changes: [{ petId: 1, delta: 1 }] });
    const anonymous = await t.app.inject({
      method: "POST",
      url: "/v1/inventory/batch",
      headers: { "content-type": "application/json" },
      payload: body,
    });
    expectError(anonymous, 401, "unauthorized");
    expectError(await batch(body, READ_AUTH), 403, "forbidden");
    expect(await quantities()).toContain('{"petId":1,"quantity":3,');
  });

  it("405 with Allow: POST for other methods", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE"] as const) {
      const response = await t.app.inject({ method, url: "/v1/inventory/batch", headers: AUTH });
      expectError(response, 405, "method_not_allowed");
      expect(response.headers.allow).toBe("POST");
    }
  });
});

describe("POST /v1/inventory/batch while another process holds the SQLite lock", () => {
  let locked: LockedTestApp;
  beforeEach(async () => {
    locked = await createLockedTestApp(50);
  });
  afterEach(() => locked.close());

  it("answers 503 unavailable with Retry-After, changing nothing; applies once the lock is gone", async () => {
    const body = { changes: [{ petId: 1, delta: -1, ref: "s1" }] };
    const response = await batch(body, {}, locked);
    expectError(response, 503, "unavailable");
    expect(response.headers["retry-after"]).toBe("1");
    locked.release();
    const later = await batch(body, {}, locked);
    expect(later.json()).toMatchObject({ changed: 1 });
  });
});

describe("Inventory-Seq and counts", () => {
  const get = (url: string) => t.app.inject({ url, headers: AUTH });
  const patch = (quantity: number, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: "PATCH",
      url: "/v1/inventory/1",
      headers: { ...AUTH, "content-type": "application/json", ...headers },
      payload: JSON.stringify({ quantity }),
    });

  it("says on every inventory answer the seq of the last change it reflects; a replay the one it was first given", async () => {
    // The seed's three records are seqs 1 to 3.
    expect((await get("/v1/inventory")).headers["inventory-seq"]).toBe("3");
    expect((await get("/v1/inventory/1")).headers["inventory-seq"]).toBe("3");
    const written = await patch(4, { "idempotency-key": "p-1" });
    expect([written.statusCode, written.headers["inventory-seq"]]).toEqual([200, "4"]);
    const conflict = await patch(9, { "if-match": '"3"', "idempotency-key": "p-2" });
    expect([conflict.statusCode, conflict.headers["inventory-seq"]]).toEqual([412, "4"]);
    const twice = {
      changes: [
        { petId: 2, delta: 1 },
        { petId: 2, delta: 1 },
      ],
    };
    const batched = await batch(twice, { "idempotency-key": "b-1" });
    expect(batched.headers["inventory-seq"]).toBe("6");
    expect((await get("/v1/inventory")).headers["inventory-seq"]).toBe("6");
    await batch({ changes: [{ petId: 3, delta: 1 }] });
    // Replays, after seq 7: each with the seq it was first given, not the latest.
    const replays = [
      await patch(4, { "idempotency-key": "p-1" }),
      await patch(9, { "if-match": '"3"', "idempotency-key": "p-2" }),
      await batch(twice, { "idempotency-key": "b-1" }),
    ];
    expect(
      replays.map((replay) => [
        replay.statusCode,
        replay.headers["idempotent-replayed"],
        replay.headers["inventory-seq"],
      ]),
    ).toEqual([
      [200, "true", "4"],
      [412, "true", "4"],
      [200, "true", "6"],
    ]);
    // A 404 says no seq, first given or replayed.
    const patchMissing = () =>
      t.app.inject({
        method: "PATCH",
        url: "/v1/inventory/404",
        headers: { ...AUTH, "content-type": "application/json", "idempotency-key": "p-404" },
        payload: { quantity: 1 },
      });
    const missing = await patchMissing();
    const missingAgain = await patchMissing();
    expect(
      [missing, missingAgain].map((answer) => [
        answer.statusCode,
        answer.headers["idempotent-replayed"],
        answer.headers["inventory-seq"],
      ]),
    ).toEqual([
      [404, undefined, undefined],
      [404, "true", undefined],
    ]);
  });

  it("replays an answer whose record kept no seq (kept before schema version 13) without one", async () => {
    const written = await patch(4, { "idempotency-key": "p-old" });
    expect(written.headers["inventory-seq"]).toBe("4");
    const db = new Database(t.dbPath);
    db.prepare("UPDATE idempotency_records SET seq = NULL").run();
    db.close();
    const replayed = await patch(4, { "idempotency-key": "p-old" });
    expect([replayed.statusCode, replayed.body]).toEqual([200, written.body]);
    expect(replayed.headers["idempotent-replayed"]).toBe("true");
    expect(replayed.headers["inventory-seq"]).toBeUndefined();
  });

  it("sets a count plus what moved after its asOf, and answers book, since, counted and variance", async () => {
    await batch({ changes: [{ petId: 1, delta: -1 }] });
    const response = await batch(
      { atomic: true, changes: [{ petId: 1, count: 5, asOf: 3, ref: "count:s:1" }] },
      { "idempotency-key": "c-1" },
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers["inventory-seq"]).toBe("5");
    expect(response.body).toBe(
      '{"changed":1,"unchanged":0,"failed":0,"results":[' +
        '{"petId":1,"outcome":"changed","previous":2,"quantity":4,"status":"available",' +
        '"book":3,"since":-1,"counted":5,"variance":2}]}',
    );
    // A retry replays; the same key for another count is refused; the ref applies once.
    const retry = await batch(
      { atomic: true, changes: [{ petId: 1, count: 5, asOf: 3, ref: "count:s:1" }] },
      { "idempotency-key": "c-1" },
    );
    expect([retry.headers["idempotent-replayed"], retry.body]).toEqual(["true", response.body]);
    expectError(
      await batch(
        { atomic: true, changes: [{ petId: 1, count: 6, asOf: 3, ref: "count:s:1" }] },
        { "idempotency-key": "c-1" },
      ),
      422,
      "idempotency_key_reused",
    );
    const again = await batch({ changes: [{ petId: 1, count: 5, asOf: 3, ref: "count:s:1" }] });
    expect(again.json()).toMatchObject({ unchanged: 1, results: [{ outcome: "duplicate" }] });
    expect(JSON.parse(await quantities())).toContainEqual({
      petId: 1,
      quantity: 4,
      status: "available",
    });
  });

  it.each([
    [{ changes: [{ petId: 1, count: 1 }] }, /^changes\[0\]\.asOf is required with count/],
    [{ changes: [{ petId: 1, asOf: 1 }] }, /^changes\[0\] must have one of quantity .* not none/],
    [
      { changes: [{ petId: 1, count: 1, asOf: 1, ifQuantity: 3 }] },
      /^changes\[0\]\.ifQuantity does not go with count/,
    ],
    [
      { changes: [{ petId: 1, count: 1, delta: 1, asOf: 1 }] },
      /^changes\[0\] must have one of quantity .* not delta and count/,
    ],
    [
      { changes: [{ petId: 1, count: -1, asOf: 1 }] },
      /^changes\[0\]\.count must be a whole number/,
    ],
    [{ changes: [{ petId: 1, count: 1, asOf: -1 }] }, /^changes\[0\]\.asOf must be a whole number/],
    [
      {
        changes: [
          { petId: 2, delta: 1 },
          { petId: 1, count: 1, asOf: 4 },
        ],
      },
      /^changes\[1\]\.asOf 4 is after the latest change \(seq 3\).*; nothing was changed$/,
    ],
  ])("refuses %j: 400, nothing changed", async (body, message) => {
    await expectRefused(body, 400, "invalid_body", message);
  });
});
