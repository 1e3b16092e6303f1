import { describe, expect, it } from "vitest";
import { exitCodeForSignal } from "../../src/exit-codes.js";
import { claimRun, Interrupts, RunInterrupted } from "../../src/program/interrupts.js";

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

describe("claimRun", () => {
  it("waits for work while no signal comes, and tells of none", async () => {
    const interrupts = new Interrupts();
    const run = claimRun(interrupts, () => undefined);
    expect(await run.until(() => Promise.resolve(7))).toBe(7);
    expect(run.signal()).toBeUndefined();
    run.release();
    expect(interrupts.deliver("SIGINT")).toBe("unclaimed");
  });

  it("stops waiting at the signal: RunInterrupted at once, the work left unseen", async () => {
    const interrupts = new Interrupts();
    const seen: string[] = [];
    const run = claimRun(interrupts, (signal) => seen.push(signal));
    let fail: (error: Error) => void = () => undefined;
    const waiting = run.until(
      () =>
        new Promise<never>((_resolve, reject) => {
          fail = reject;
        }),
    );
    expect(interrupts.deliver("SIGTERM")).toBe("claimed");
    await expect(waiting).rejects.toEqual(new RunInterrupted("SIGTERM"));
    fail(new Error("the abandoned work failing later is no unhandled rejection"));
    expect(seen).toEqual(["SIGTERM"]);
    expect(run.signal()).toBe("SIGTERM");
    expect(interrupts.interrupted).toBe(true);
    expect(interrupts.deliver("SIGINT")).toBe("again");
  });

  it("starts no work once interrupted", async () => {
    const interrupts = new Interrupts();
    const run = claimRun(interrupts, () => undefined);
    interrupts.deliver("SIGINT");
    let started = false;
    await expect(
      run.until(() => {
        started = true;
        return Promise.resolve();
      }),
    ).rejects.toBeInstanceOf(RunInterrupted);
    expect(started).toBe(false);
  });
});
