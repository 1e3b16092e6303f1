/** `--reason` on the commands that change stock: sent as X-Change-Reason, checked first. */
import { describe, expect, it } from "vitest";
import { defaultAdjustReason } from "../../../src/commands/inventory/adjust-file-run.js";
import { defaultApplyReason } from "../../../src/commands/inventory/apply-run.js";
import { HttpStubs, json, runFake } from "../fake-deps.js";

const ENTRY = (quantity: number) => `{"petId":42,"quantity":${quantity},"status":"available"}`;

/** A batch answer: pets 1 and 2 changed from 3 to 9. */
const CHANGED_1_2 = JSON.stringify({
  changed: 2,
  unchanged: 0,
  failed: 0,
  results: [1, 2].map((petId) => ({
    petId,
    outcome: "changed",
    previous: 3,
    quantity: 9,
    status: "available",
  })),
});

/** The X-Change-Reason of each write (PATCH, or a batch's POST). */
function reasonsSent(stubs: HttpStubs): (string | undefined)[] {
  return stubs.requests
    .filter((call) => call.method === "PATCH" || call.method === "POST")
    .map((call) => call.headers["x-change-reason"]);
}

describe("--reason", () => {
  it("set sends it as X-Change-Reason, as UTF-8 bytes", async () => {
    const stubs = new HttpStubs();
    stubs.on("PATCH", "/v1/inventory/42").reply(200, ENTRY(7), json);
    const result = await runFake(["inventory", "set", "42", "7", "--reason", "Inventur März"], {
      stubs,
    });
    expect(result.code).toBe(0);
    expect(reasonsSent(stubs)).toEqual([Buffer.from("Inventur März").toString("latin1")]);
  });

  it("set sends none without it", async () => {
    const stubs = new HttpStubs();
    stubs.on("PATCH", "/v1/inventory/42").reply(200, ENTRY(7), json);
    expect((await runFake(["inventory", "set", "42", "7"], { stubs })).code).toBe(0);
    expect(reasonsSent(stubs)).toEqual([undefined]);
  });

  it("adjust sends it with its conditional write", async () => {
    const stubs = new HttpStubs();
    stubs
      .on("GET", "/v1/inventory/42")
      .reply(200, ENTRY(5), { headers: { "content-type": "application/json", etag: '"5"' } });
    stubs.on("PATCH", "/v1/inventory/42").reply(200, ENTRY(4), json);
    const result = await runFake(["inventory", "adjust", "42", "-1", "--reason", "sale"], {
      stubs,
    });
    expect(result.code).toBe(0);
    expect(reasonsSent(stubs)).toEqual(["sale"]);
  });

  it.each([
    ["x".repeat(201), "it is 201 characters long; at most 200 are allowed"],
    ["two\nlines", "it holds a control character (a line break, a tab, ...)"],
    ["", "it is empty"],
  ])(
    "refuses %j before sending anything, in the same words everywhere (exit 2)",
    async (reason, problem) => {
      for (const argv of [
        ["inventory", "set", "42", "7", "--reason", reason],
        ["inventory", "adjust", "42", "+1", "--reason", reason],
        ["inventory", "apply", "counts.csv", "--reason", reason],
        ["inventory", "adjust", "--file", "counts.csv", "--reason", reason],
      ]) {
        const stubs = new HttpStubs();
        const result = await runFake(argv, {
          stubs,
          files: { "counts.csv": "petId,quantity\n42,7\n" },
        });
        expect(result, argv.join(" ")).toMatchObject({
          code: 2,
          stdout: "",
          stderr:
            `error: --reason is refused: ${problem}\n` +
            "hint: a reason is one line of at most 200 characters, kept in the entry's history\n",
        });
        expect(stubs.calls()).toEqual([]);
      }
    },
  );

  it("apply gives every change the file's name as reason, or the one asked for", async () => {
    for (const [extra, expected] of [
      [[], "apply counts.csv"],
      [["--reason", "stocktake"], "stocktake"],
    ] as const) {
      const stubs = new HttpStubs();
      stubs
        .on("GET", "/v1/inventory")
        .reply(
          200,
          '[{"petId":1,"quantity":3,"status":"available"},{"petId":2,"quantity":3,"status":"available"}]',
          json,
        );
      stubs.on("POST", "/v1/inventory/batch").reply(200, CHANGED_1_2, json);
      const result = await runFake(["inventory", "apply", "shop/counts.csv", ...extra], {
        stubs,
        files: { "shop/counts.csv": "petId,quantity\n1,9\n2,9\n" },
      });
      expect(result.code).toBe(0);
      // One batch: its X-Change-Reason applies to every change in it.
      expect(reasonsSent(stubs)).toEqual([expected]);
    }
  });

  it("adjust --file gives every change the file's name as reason, or the one asked for", async () => {
    for (const [extra, expected] of [
      [[], "adjust sales.csv"],
      [["--reason", "till 3"], "till 3"],
    ] as const) {
      const stubs = new HttpStubs();
      stubs.on("POST", "/v1/inventory/batch").reply(200, CHANGED_1_2, json);
      const result = await runFake(["inventory", "adjust", "--file", "shop/sales.csv", ...extra], {
        stubs,
        files: { "shop/sales.csv": "petId,delta,ref\n1,+6,r-1\n2,+6,r-2\n" },
      });
      expect(result.code).toBe(0);
      expect(reasonsSent(stubs)).toEqual([expected]);
    }
  });

  it("apply's default reason fits the rule whatever the file is called", () => {
    expect(defaultApplyReason("-")).toBe("apply stdin");
    expect(defaultApplyReason("/var/counts/2026-11.csv")).toBe("apply 2026-11.csv");
    expect(defaultApplyReason("odd\nname.csv")).toBe("apply odd?name.csv");
    expect(Array.from(defaultApplyReason(`${"é".repeat(300)}.csv`))).toHaveLength(200);
  });

  it("adjust --file's default reason fits the rule whatever the file is called", () => {
    expect(defaultAdjustReason("-")).toBe("adjust stdin");
    expect(defaultAdjustReason("/var/till/sales-2026-11-24.csv")).toBe(
      "adjust sales-2026-11-24.csv",
    );
    expect(defaultAdjustReason("odd\nname.csv")).toBe("adjust odd?name.csv");
  });
});
