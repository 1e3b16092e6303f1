import { Writable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FeedChange } from "../../src/api/types.js";
import { ApiError, NetworkError } from "../../src/client/errors.js";
import {
  changeJsonLine,
  changesLayout,
  changesPrinter,
  formatFeedBack,
  formatFeedLost,
} from "../../src/output/changes.js";
import { localTime } from "../../src/text/local-time.js";
import { createIoStreams, writeFlushed } from "../../src/output/io-streams.js";
import { captureIo } from "../support/capture-io.js";

const SALE: FeedChange = {
  seq: 41231n,
  at: "2026-11-22T14:03:12.481Z",
  petId: 42n,
  previous: 8,
  quantity: 7,
  keyName: "till-1",
  requestId: "0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b",
  reason: "sale",
  ref: "till-1:0001",
};
const SEED: FeedChange = {
  seq: 1n,
  at: "2026-11-01T09:00:00.000Z",
  petId: 9223372036854775807n,
  previous: null,
  quantity: 6,
  keyName: null,
  requestId: null,
  reason: "seed pets.json",
  ref: null,
};
const ODD: FeedChange = {
  ...SALE,
  seq: 41232n,
  previous: 7,
  quantity: 7,
  reason: 'counted, "twice"\tby\nme\u0007',
  ref: null,
};

describe("changesLayout", () => {
  it("keeps every format, but a terminal's table becomes lines when following", () => {
    expect(changesLayout("table", false)).toBe("table");
    expect(changesLayout("table", true)).toBe("lines");
    for (const format of ["tsv", "json", "csv"] as const) {
      expect(changesLayout(format, true)).toBe(format);
      expect(changesLayout(format, false)).toBe(format);
    }
  });
});

describe("changesPrinter", () => {
  it("tsv: one line per change in column order, empty fields for nulls, control characters as U+FFFD", async () => {
    const { streams, out } = captureIo(false);
    const printer = changesPrinter("tsv", streams, 0n);
    await expect(printer.print([SEED, SALE])).resolves.toBe(true);
    await expect(printer.print([ODD])).resolves.toBe(true);
    await printer.finish();
    expect(out()).toBe(
      "1\t2026-11-01T09:00:00.000Z\t9223372036854775807\t\t6\t\t\tseed pets.json\t\n" +
        "41231\t2026-11-22T14:03:12.481Z\t42\t8\t7\ttill-1\t0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b\tsale\ttill-1:0001\n" +
        '41232\t2026-11-22T14:03:12.481Z\t42\t7\t7\ttill-1\t0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b\tcounted, "twice"\uFFFDby\uFFFDme\uFFFD\t\n',
    );
  });

  it("json: one object per line, keys in column order, int64 exact", async () => {
    const { streams, out } = captureIo(false);
    const printer = changesPrinter("json", streams, 0n);
    await printer.print([SEED, SALE]);
    await printer.finish();
    const lines = out().split("\n");
    expect(lines).toEqual([
      '{"seq":1,"at":"2026-11-01T09:00:00.000Z","petId":9223372036854775807,"previous":null,"quantity":6,"keyName":null,"requestId":null,"reason":"seed pets.json","ref":null}',
      '{"seq":41231,"at":"2026-11-22T14:03:12.481Z","petId":42,"previous":8,"quantity":7,"keyName":"till-1","requestId":"0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b","reason":"sale","ref":"till-1:0001"}',
      "",
    ]);
  });

  it("json: a seq beyond 2^53 is written exactly too, and the text as sent", () => {
    const line = changeJsonLine({ ...ODD, seq: 9007199254740993n });
    expect(line).toMatch(/^\{"seq":9007199254740993,"at":/);
    expect(line).toContain('"reason":"counted, \\"twice\\"\\tby\\nme\\u0007"');
    expect(line.endsWith("}\n")).toBe(true);
  });

  it("json: each line is JSON.stringify's text of the change, int64s as their digits", () => {
    // Any UTF-16 code unit, lone surrogates and controls included.
    const text = fc.string({
      unit: fc.nat(0xffff).map((code) => String.fromCharCode(code)),
      maxLength: 12,
    });
    const int64s = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    const change = fc.record({
      seq: int64s,
      at: text,
      petId: int64s,
      previous: fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
      quantity: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      keyName: fc.option(text),
      requestId: fc.option(text),
      reason: fc.option(text),
      ref: fc.option(text),
    });
    // A bigint written into JSON.stringify's text as its digits (no string here holds "#int64:").
    const digits = (value: bigint) => `#int64:${value}#`;
    fc.assert(
      fc.property(change, (fields) => {
        const expected = JSON.stringify({
          ...fields,
          seq: digits(fields.seq),
          petId: digits(fields.petId),
        }).replace(/"#int64:(-?\d+)#"/g, "$1");
        expect(changeJsonLine(fields)).toBe(`${expected}\n`);
      }),
      { numRuns: 500 },
    );
    expect(changeJsonLine(ODD)).toBe(`${JSON.stringify({ ...ODD, seq: 41232, petId: 42 })}\n`);
  });

  it("csv: a header, then the columns, quoted where needed; the header alone when there is no change", async () => {
    const header = "seq,at,petId,previous,quantity,keyName,requestId,reason,ref\n";
    const some = captureIo(false);
    const printer = changesPrinter("csv", some.streams, 0n);
    await printer.print([SEED]);
    await printer.print([ODD]);
    await printer.finish();
    expect(some.out()).toBe(
      header +
        "1,2026-11-01T09:00:00.000Z,9223372036854775807,,6,,,seed pets.json,\n" +
        '41232,2026-11-22T14:03:12.481Z,42,7,7,till-1,0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b,"counted, ""twice""\tby\nme\u0007",\n',
    );
    const none = captureIo(false);
    const empty = changesPrinter("csv", none.streams, 5n);
    await empty.finish();
    expect(none.out()).toBe(header);
  });

  it("csv when following: the header comes with the first page, even an empty one", async () => {
    const { streams, out } = captureIo(false);
    const printer = changesPrinter("csv", streams, 0n);
    await printer.print([]);
    expect(out()).toBe("seq,at,petId,previous,quantity,keyName,requestId,reason,ref\n");
    await printer.print([]);
    await printer.finish();
    expect(out().split("\n")).toHaveLength(2);
  });

  it("table: holds the pages and prints one table at the end, local times and signs", async () => {
    const { streams, out } = captureIo(true);
    const printer = changesPrinter("table", streams, 0n);
    await expect(printer.print([SEED])).resolves.toBe(false);
    await expect(printer.print([SALE, ODD])).resolves.toBe(false);
    expect(out()).toBe("");
    await printer.finish();
    const text = out();
    expect(text).toMatch(/seq.*when.*petId.*previous.*quantity.*change.*key.*reason.*ref/);
    expect(text).toMatch(
      new RegExp(
        `│ +41231 │ ${localTime(SALE.at)} │ +42 │ +8 │ +7 │ +-1 │ till-1 +│ sale +│ till-1:0001`,
      ),
    );
    expect(text).toMatch(/│ +1 │ .* │ 9223372036854775807 │ +│ +6 │ +│ +│ seed pets.json/);
    expect(text).toMatch(/│ +41232 │ .* │ +7 │ +7 │ +±0 │/);
    expect(text).not.toContain("0b6f4c1e");
  });

  it("table: no ref column when no change has one; a note when there is no change", async () => {
    const one = captureIo(true);
    const printer = changesPrinter("table", one.streams, 0n);
    await printer.print([SEED]);
    await printer.finish();
    expect(one.out()).not.toMatch(/\bref\b/);
    const none = captureIo(true);
    await changesPrinter("table", none.streams, 41230n).finish();
    expect(none.out()).toBe("no changes after seq 41230\n");
  });

  it("lines: a header once, then one aligned line per change as pages come", async () => {
    const { streams, out } = captureIo(true);
    const printer = changesPrinter("lines", streams, 0n);
    await printer.print([]);
    const header = out();
    expect(header).toBe(
      "      seq  when                   petId  previous  quantity  change  key           ref                   reason\n",
    );
    await printer.print([SALE]);
    await printer.print([SEED]);
    await printer.finish();
    const lines = out().slice(header.length).split("\n");
    expect(lines).toEqual([
      `    41231  ${localTime(SALE.at)}       42         8         7      -1  till-1        till-1:0001           sale`,
      `        1  ${localTime(SEED.at)}  9223372036854775807       6                                              seed pets.json`,
      "",
    ]);
    // A wide petId pushes the next cells right only until they are back in their columns.
    const [sale = "", seed = ""] = lines;
    expect(seed.indexOf("6 ")).toBe(sale.indexOf("7 ", sale.indexOf("8")));
    expect(seed.indexOf("seed pets.json")).toBe(sale.indexOf("sale"));
    expect(header.indexOf("reason")).toBe(sale.indexOf("sale"));
  });

  it("lines on a terminal under 125 columns: each change as its lines, the ref and reason wrapped below", async () => {
    const { streams, out } = captureIo(true);
    const printer = changesPrinter("lines", { ...streams, width: 60 }, 0n);
    const long = {
      ...SALE,
      reason: "delivery from the wholesaler, three boxes short, see the note on the invoice",
    };
    await printer.print([long, SEED]);
    expect(out().split("\n")).toEqual([
      `41231  ${localTime(SALE.at)}  pet 42  8 → 7  -1  by till-1`,
      "    ref till-1:0001",
      "    delivery from the wholesaler, three boxes short, see the",
      "    note on the invoice",
      `1  ${localTime(SEED.at)}  pet 9223372036854775807  → 6`,
      "    seed pets.json",
      "",
    ]);
    expect(
      Math.max(
        ...out()
          .split("\n")
          .map((line) => line.length),
      ),
    ).toBeLessThanOrEqual(60);
    // A change with no key, ref or reason is one line.
    const bare = captureIo(true);
    const quiet = changesPrinter("lines", { ...bare.streams, width: 80 }, 0n);
    await quiet.print([{ ...SEED, reason: null }]);
    expect(bare.out()).toBe(`1  ${localTime(SEED.at)}  pet 9223372036854775807  → 6\n`);
  });

  it("lines at 125 columns or more: a reason past the edge wraps under where it starts", async () => {
    const { streams, out } = captureIo(true);
    const printer = changesPrinter("lines", { ...streams, width: 130 }, 0n);
    await printer.print([
      { ...SALE, reason: "counted twice: the second count found one more behind the bowls" },
    ]);
    const [, first = "", second = ""] = out().split("\n");
    const start = first.indexOf("counted");
    expect(start).toBe(105);
    expect(first.length).toBeLessThanOrEqual(130);
    expect(second).toMatch(new RegExp(`^ {${start}}\\S`));
    // At 125 columns, 20 are left beside it: still beside.
    const edge = captureIo(true);
    await changesPrinter("lines", { ...edge.streams, width: 125 }, 0n).print([
      { ...SALE, reason: "counted twice: the second count found one more behind the bowls" },
    ]);
    expect(edge.out().split("\n")[1]?.indexOf("counted")).toBe(105);
    // A ref so long the line runs past the edge before its reason: the change as its lines.
    const long = captureIo(true);
    await changesPrinter("lines", { ...long.streams, width: 126 }, 0n).print([
      { ...SALE, ref: "delivery-note/supplier-acme/2026-11-27/DN-998877-x", reason: "delivery" },
    ]);
    expect(long.out().split("\n").slice(1)).toEqual([
      `41231  ${localTime(SALE.at)}  pet 42  8 → 7  -1  by till-1`,
      "    ref delivery-note/supplier-acme/2026-11-27/DN-998877-x",
      "    delivery",
      "",
    ]);
    // A ref that pushes the reason too far right: the reason goes below, under when.
    const pushed = captureIo(true);
    await changesPrinter("lines", { ...pushed.streams, width: 130 }, 0n).print([
      {
        ...SALE,
        ref: "count:20261127-222057-3c3ebd10:1",
        reason: "stocktake of aisle four and the hamster cages",
      },
    ]);
    const [, line = "", below = ""] = pushed.out().split("\n");
    expect(line.endsWith("count:20261127-222057-3c3ebd10:1")).toBe(true);
    expect(below).toBe("           stocktake of aisle four and the hamster cages");
  });

  it("lines on a terminal of 125 columns or more: one line per change, as when the width is not known", async () => {
    const wide = captureIo(true);
    await changesPrinter("lines", { ...wide.streams, width: 125 }, 0n).print([SALE]);
    const unknown = captureIo(true);
    await changesPrinter("lines", unknown.streams, 0n).print([SALE]);
    expect(wide.out()).toBe(unknown.out());
    expect(wide.out().split("\n")).toHaveLength(3);
  });
});

describe("writeFlushed", () => {
  it("resolves only once a stream has handed the text on (its write callback)", async () => {
    const events: string[] = [];
    let finishWrite: () => void = () => undefined;
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        events.push(`written ${chunk.toString().trim()}`);
        finishWrite = () => {
          events.push("handed on");
          callback();
        };
      },
    });
    const flushed = writeFlushed(stream, "page 1\n").then(() => events.push("flushed"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(["written page 1"]);
    finishWrite();
    await flushed;
    expect(events).toEqual(["written page 1", "handed on", "flushed"]);
  });

  it("rejects with the stream's error (a reader that went away)", async () => {
    const stream = new Writable({
      write(_chunk, _encoding, callback) {
        callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    stream.on("error", () => undefined);
    await expect(writeFlushed(stream, "x\n")).rejects.toThrow("EPIPE");
  });

  it("writes to a sink that is no stream at once", async () => {
    let text = "";
    const io = createIoStreams({
      out: { write: (chunk: string) => (text += chunk) },
      err: { write: () => undefined },
      isTTY: false,
      env: {},
      colorFlag: false,
    });
    await writeFlushed(io.out, "a\n");
    expect(text).toBe("a\n");
  });
});

describe("what a follower says on stderr", () => {
  it("names the failure once it lost the server, and the cursor once it is back", () => {
    const refused = new NetworkError({
      failure: "unreachable",
      message:
        "cannot reach http://127.0.0.1:4010/v1/inventory/changes?after=3&limit=1000&wait=30: connection refused",
      method: "GET",
      url: "u",
      attempts: 3,
    });
    expect(formatFeedLost(refused)).toBe(
      "warning: cannot reach http://127.0.0.1:4010/v1/inventory/changes?after=3&limit=1000&wait=30: connection refused; asking again until the server answers (interrupt to stop)\n",
    );
    const unavailable = new ApiError({
      status: 503,
      code: "unavailable",
      message: "the server is shutting down",
      operation: "listInventoryChanges",
      method: "GET",
      url: "u",
      attempts: 3,
    });
    expect(formatFeedLost(unavailable)).toBe(
      "warning: the server answered 503 unavailable: the server is shutting down; asking again until the server answers (interrupt to stop)\n",
    );
    expect(formatFeedBack(41230n)).toBe(
      "note: the server answers again; following the changes after seq 41230\n",
    );
  });
});
