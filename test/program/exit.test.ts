/** The one mapper from what a run throws to its exit code and message (src/program/exit.ts). */
import { CommanderError } from "commander";
import { describe, expect, it } from "vitest";
import { CliError, LowStockError, OutputError, UsageError } from "../../src/errors.js";
import { ApiError, ConfigurationError } from "../../src/client/errors.js";
import { exitFor } from "../../src/program/exit.js";

const quiet = { verbose: false };

function apiError(status: number): ApiError {
  return new ApiError({
    status,
    code: undefined,
    message: "no",
    operation: "listInventory",
    method: "GET",
    url: "http://127.0.0.1:4010/v1/inventory",
    attempts: 1,
  });
}

describe("exitFor", () => {
  it.each([
    [301, 2],
    [400, 6],
    [401, 4],
    [403, 4],
    [404, 5],
    [408, 3],
    [409, 6],
    [412, 8],
    [418, 6],
    [429, 3],
    [500, 3],
    [503, 3],
  ])("maps a final HTTP %i to exit %i", (status, code) => {
    expect(exitFor(apiError(status), quiet).code).toBe(code);
  });

  it("maps a setting the client cannot use to exit 2, with its hint", () => {
    expect(exitFor(new ConfigurationError("bad proxy", "check HTTPS_PROXY"), quiet)).toEqual({
      code: 2,
      message: "bad proxy",
      hint: "check HTTPS_PROXY",
    });
  });

  it("keeps the code a command's own error names", () => {
    expect(exitFor(new UsageError("bad", "do this"), quiet)).toEqual({
      code: 2,
      message: "bad",
      hint: "do this",
    });
    expect(exitFor(new CliError("gave up", 8), quiet).code).toBe(8);
  });

  it("maps stdout that cannot be written to exit 2 in the system's words, never a stack", () => {
    const full = Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      syscall: "write",
      errno: -28,
    });
    const exit = exitFor(new OutputError(full), { verbose: true });
    expect(exit).toEqual({
      code: 2,
      message: "cannot write the output: no space left on device (ENOSPC)",
      hint: "what was printed is incomplete: make room where stdout goes, or send it elsewhere (a write the command sent stays made; a --cursor-file is saved only for what was written out)",
    });
    const odd = Object.assign(new Error("the stream broke"), { code: "EIO" });
    expect(exitFor(new OutputError(odd), quiet).message).toBe(
      "cannot write the output: the stream broke (EIO)",
    );
  });

  it("says nothing for low stock (the list is on stdout): exit 9", () => {
    expect(exitFor(new LowStockError(2), quiet)).toEqual({ code: 9 });
  });

  it("leaves commander's own messages to commander: help is 0, an error 2", () => {
    expect(exitFor(new CommanderError(0, "commander.helpDisplayed", ""), quiet)).toEqual({
      code: 0,
    });
    expect(exitFor(new CommanderError(1, "commander.unknownOption", "x"), quiet)).toEqual({
      code: 2,
    });
  });

  it("calls anything else a bug: exit 1, the stack only when verbose", () => {
    const bug = new TypeError("x is undefined");
    expect(exitFor(bug, quiet)).toMatchObject({ code: 1, stack: undefined });
    expect(exitFor(bug, { verbose: true }).stack).toBe(bug.stack);
  });
});
