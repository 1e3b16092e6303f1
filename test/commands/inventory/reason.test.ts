/** `--reason` on the commands that change stock: sent as X-Change-Reason, checked first. */
import { describe, expect, it } from "vitest";
import type { MockAgent } from "undici";
import { defaultAdjustReason } from "../../../src/commands/inventory/adjust-file-run.js";
import { defaultApplyReason } from "../../../src/commands/inventory/apply-run.js";
import { callsOf, json, mockAgent, ORIGIN, runFake } from "../fake-deps.js";

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
function reasonsSent(agent: MockAgent): (string | undefined)[] {
  return (agent.getCallHistory()?.calls() ?? [])
    .filter((call) => call.method === "PATCH" || call.method === "POST")
    .map((call) => (call.headers as Record<string, string>)["x-change-reason"]);
}

describe("--reason", () => {
  it("set sends it as X-Change-Reason, as UTF-8 bytes", async () => {
    const agent = mockAgent();
    agent
      .get(ORIGIN)
      .intercept({ path: "/v1/inventory/42", method: "PATCH" })
      .reply(200, ENTRY(7), json);
    const result = await runFake(["inventory", "set", "42", "7", "--reason", "Inventur März"], {
      agent,
    });
    expect(result.code).toBe(0);
    expect(reasonsSent(agent)).toEqual([Buffer.from("Inventur März").toString("latin1")]);
  });

  it("set sends none without it", async () => {
    const agent = mockAgent();
    agent
      .get(ORIGIN)
      .intercept({ path: "/v1/inventory/42", method: "PATCH" })
      .reply(200, ENTRY(7), json);
    expect((await runFake(["inventory", "set", "42", "7"], { agent })).code).toBe(0);
    expect(reasonsSent(agent)).toEqual([undefined]);
  });

  it("adjust sends it with its conditional write", async () => {
    const agent = mockAgent();
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: "/v1/inventory/42", method: "GET" })
      .reply(200, ENTRY(5), { headers: { "content-type": "application/json", etag: '"5"' } });
    pool.intercept({ path: "/v1/inventory/42", method: "PATCH" }).reply(200, ENTRY(4), json);
    const result = await runFake(["inventory", "adjust", "42", "-1", "--reason", "sale"], {
      agent,
    });
    expect(result.code).toBe(0);
    expect(reasonsSent(agent)).toEqual(["sale"]);
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
        const agent = mockAgent();
        const result = await runFake(argv, {
          agent,
          files: { "counts.csv": "petId,quantity\n42,7\n" },
        });
        expect(result, argv.join(" ")).toMatchObject({
          code: 2,
          stdout: "",
          stderr:
            `error: --reason is refused: ${problem}\n` +
            "hint: a reason is one line of at most 200 characters, kept in the entry's history\n",
        });
        expect(callsOf(agent)).toEqual([]);
      }
    },
  );

  it("apply gives every change the file's name as reason, or the one asked for", async () => {
    for (const [extra, expected] of [
      [[], "apply counts.csv"],
      [["--reason", "stocktake"], "stocktake"],
    ] as const) {
      const agent = mockAgent();
      const pool = agent.get(ORIGIN);
      pool
        .intercept({ path: "/v1/inventory", method: "GET" })
        .reply(
          200,
          '[{"petId":1,"quantity":3,"status":"available"},{"petId":2,"quantity":3,"status":"available"}]',
          json,
        );
      pool.intercept({ path: "/v1/inventory/batch", method: "POST" }).reply(200, CHANGED_1_2, json);
      const result = await runFake(["inventory", "apply", "shop/counts.csv", ...extra], {
        agent,
        files: { "shop/counts.csv": "petId,quantity\n1,9\n2,9\n" },
      });
      expect(result.code).toBe(0);
      // One batch: its X-Change-Reason applies to every change in it.
      expect(reasonsSent(agent)).toEqual([expected]);
    }
  });

  it("adjust --file gives every change the file's name as reason, or the one asked for", async () => {
    for (const [extra, expected] of [
      [[], "adjust sales.csv"],
      [["--reason", "till 3"], "till 3"],
    ] as const) {
      const agent = mockAgent();
      agent
        .get(ORIGIN)
        .intercept({ path: "/v1/inventory/batch", method: "POST" })
        .reply(200, CHANGED_1_2, json);
      const result = await runFake(["inventory", "adjust", "--file", "shop/sales.csv", ...extra], {
        agent,
        files: { "shop/sales.csv": "petId,delta,ref\n1,+6,r-1\n2,+6,r-2\n" },
      });
      expect(result.code).toBe(0);
      expect(reasonsSent(agent)).toEqual([expected]);
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
