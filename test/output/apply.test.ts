import { describe, expect, it } from "vitest";
import type { ApplyReport } from "../../src/apply/execute.js";
import { writeApplyReport } from "../../src/output/apply.js";
import { captureIo } from "../support/capture-io.js";

const many: ApplyReport = {
  changed: 25,
  unchanged: 0,
  failed: 1,
  notAttempted: 0,
  results: [
    ...Array.from({ length: 25 }, (_, i) => ({
      petId: BigInt(i + 1),
      previous: 0,
      desired: 1,
      outcome: "changed" as const,
    })),
    {
      petId: 99n,
      previous: undefined,
      desired: 1,
      outcome: "failed" as const,
      failure: { reason: "no such pet" },
    },
  ],
};

describe("writeApplyReport", () => {
  it("lists every change in a log, and caps them on a terminal (failures always all)", async () => {
    const piped = captureIo(false);
    await writeApplyReport(many, "text", "c.csv", piped.streams);
    expect(
      piped
        .out()
        .split("\n")
        .filter((line) => line.startsWith("  pet ")),
    ).toHaveLength(26);

    const terminal = captureIo(true);
    await writeApplyReport(many, "text", "c.csv", terminal.streams);
    expect(terminal.out()).toContain("  pet 20: 0 → 1\n  … and 5 more (--json lists every row)\n");
    expect(terminal.out()).not.toContain("pet 21:");
    expect(terminal.out()).toContain("failed:\n  pet 99: no such pet\n");
  });

  it("writes previous as null for a pet the inventory did not list", async () => {
    const json = captureIo(false);
    await writeApplyReport(many, "json", "c.csv", json.streams);
    expect(json.out()).toContain(
      '"petId": 99,\n      "previous": null,\n      "desired": 1,\n      "outcome": "failed",\n      "reason": "no such pet"\n',
    );
  });
});
