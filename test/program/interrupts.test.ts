import { describe, expect, it } from "vitest";
import { exitCodeForSignal } from "../../src/errors.js";
import { Interrupts } from "../../src/program/interrupts.js";

describe("Interrupts", () => {
  it("leaves an unclaimed signal to main.ts (which ends the process)", () => {
    expect(new Interrupts().deliver("SIGINT")).toBe("unclaimed");
  });

  it("hands the first signal to the claim, and says a second one is again", () => {
    const interrupts = new Interrupts();
    const seen: string[] = [];
    interrupts.claim((signal) => seen.push(signal));
    expect(interrupts.deliver("SIGTERM")).toBe("claimed");
    expect(interrupts.deliver("SIGINT")).toBe("again");
    expect(seen).toEqual(["SIGTERM"]);
  });

  it("is unclaimed again once the claim is given back", () => {
    const interrupts = new Interrupts();
    const seen: string[] = [];
    const release = interrupts.claim((signal) => seen.push(signal));
    release();
    expect(interrupts.deliver("SIGINT")).toBe("unclaimed");
    expect(seen).toEqual([]);
  });

  it("maps SIGINT to 130 and SIGTERM to 143", () => {
    expect(exitCodeForSignal("SIGINT")).toBe(130);
    expect(exitCodeForSignal("SIGTERM")).toBe(143);
  });
});
