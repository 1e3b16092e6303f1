import { EventEmitter } from "node:events";
import { LosslessNumber, stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { toJson, writeJsonReport } from "../../src/output/json.js";

/** What toJson wrote before it had a fast path: lossless-json's output, indented, plus a newline. */
const lossless = (value: unknown) => `${stringify(value, null, 2) ?? "null"}\n`;

describe("toJson", () => {
  it("writes safe bigints as the numbers JSON.stringify would", () => {
    const items = [
      { petId: 1n, quantity: 0, status: "available" },
      { petId: 9007199254740991n, quantity: 7, status: "sold" },
      { petId: -9007199254740991n, quantity: 2147483647, status: "pending" },
    ];
    const text = toJson(items);
    expect(text).toBe(lossless(items));
    expect(text).toContain('"petId": 9007199254740991,');
  });

  it("keeps int64 values beyond 2^53 exact", () => {
    const item = { petId: 9223372036854775807n, quantity: 3, status: "available" };
    expect(toJson(item)).toBe(
      '{\n  "petId": 9223372036854775807,\n  "quantity": 3,\n  "status": "available"\n}\n',
    );
    expect(toJson([{ ok: 1n }, { id: -9007199254740992n }])).toBe(
      lossless([{ ok: 1n }, { id: -9007199254740992n }]),
    );
  });

  it("writes a LosslessNumber as its own digits", () => {
    const value = { at: new LosslessNumber("12345678901234567890"), nested: [1.5] };
    expect(toJson(value)).toBe(
      '{\n  "at": 12345678901234567890,\n  "nested": [\n    1.5\n  ]\n}\n',
    );
  });

  it("writes what has no bigint the way lossless-json does: empty, nested, null, dates, undefined", () => {
    for (const value of [
      [],
      {},
      null,
      'text \u0000 "quoted"',
      { a: undefined, b: [undefined, null], c: { d: [] }, e: new Date(0), f: true },
      undefined,
    ]) {
      expect(toJson(value)).toBe(lossless(value));
    }
  });
});

describe("writeJsonReport", () => {
  async function written(head: Record<string, unknown>, rows: readonly unknown[]): Promise<string> {
    let text = "";
    await writeJsonReport({ write: (chunk: string) => (text += chunk) }, head, rows, (row) =>
      typeof row === "object" && row !== null ? { ...row } : row,
    );
    return text;
  }

  it.each([
    ["no rows", []],
    ["one row", [{ petId: 1n, previous: null, outcome: "changed", reason: 'a "quoted" reason' }]],
    [
      "2,500 rows, over several writes",
      Array.from({ length: 2500 }, (_, i) => ({ petId: BigInt(i + 1), desired: i, outcome: "x" })),
    ],
    [
      "rows with int64 ids beyond 2^53 among others",
      Array.from({ length: 1500 }, (_, i) => ({
        petId: i === 1200 ? 9223372036854775807n : BigInt(i),
        previous: i % 3 === 0 ? null : i,
      })),
    ],
  ])("writes %s exactly as toJson writes the whole report", async (_name, rows) => {
    const head = { changed: 1, unchanged: 2, failed: 3 };
    expect(await written(head, rows)).toBe(toJson({ ...head, results: rows }));
  });

  it("writes the next thousand rows only once a full sink has drained (a pipe read slowly)", async () => {
    const sink = new EventEmitter() as EventEmitter & { write(text: string): boolean };
    const writes: string[] = [];
    sink.write = (chunk: string) => {
      writes.push(chunk);
      return false; // always full
    };
    const rows = Array.from({ length: 2500 }, (_, i) => ({ petId: BigInt(i) }));
    const done = writeJsonReport(sink, { changed: 0 }, rows, (row) => ({ ...row }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(2); // the head, then the first thousand
    sink.emit("drain");
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(3);
    const state = { finished: false };
    void done.then(() => (state.finished = true));
    while (!state.finished) {
      sink.emit("drain");
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(writes).toHaveLength(5);
    expect(writes.join("")).toBe(toJson({ changed: 0, results: rows }));
  });

  it("writes a thousand rows at a time, never the whole report at once", async () => {
    const writes: string[] = [];
    const rows = Array.from({ length: 2500 }, (_, i) => ({ petId: BigInt(i) }));
    await writeJsonReport(
      { write: (chunk: string) => writes.push(chunk) },
      { dryRun: true },
      rows,
      (row) => ({
        ...row,
      }),
    );
    expect(writes).toHaveLength(5);
  });
});
