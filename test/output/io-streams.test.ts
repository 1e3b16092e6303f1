import { describe, expect, it } from "vitest";
import { PassThrough } from "node:stream";
import { createIoStreams, decideColor } from "../../src/output/io-streams.js";

describe("decideColor", () => {
  it.each([
    [true, {}, true, true],
    [false, {}, true, false],
    [true, {}, false, false],
    [true, { NO_COLOR: "1" }, true, false],
    [true, { NO_COLOR: "" }, true, true],
    [true, { TERM: "dumb" }, true, false],
    [true, { FORCE_COLOR: "0" }, true, false],
    [true, { FORCE_COLOR: "false" }, true, false],
    [false, { FORCE_COLOR: "1" }, true, true],
    [false, { FORCE_COLOR: "" }, true, true],
    [true, { FORCE_COLOR: "1", NO_COLOR: "1" }, true, true],
    [false, { FORCE_COLOR: "1" }, false, false],
  ])("TTY %s, env %j, colour flag %s → %s", (isTTY, env, colorFlag, expected) => {
    expect(decideColor({ isTTY, env, colorFlag })).toBe(expected);
  });
});

describe("createIoStreams", () => {
  it("gives colour functions that are no-ops when colour is off", () => {
    const sink = { write: () => true };
    const plain = createIoStreams({
      out: sink,
      err: sink,
      isTTY: true,
      env: { NO_COLOR: "1" },
      colorFlag: true,
    });
    expect(plain.style.green("ok")).toBe("ok");
    const coloured = createIoStreams({
      out: sink,
      err: sink,
      isTTY: true,
      env: {},
      colorFlag: true,
    });
    expect(coloured.style.green("ok")).toBe("\u001b[32mok\u001b[39m");
  });
});

describe("createIoStreams: progress and symbols", () => {
  const sink = { write: () => true };
  const stderr = new PassThrough();
  const base = { out: sink, err: sink, env: {}, colorFlag: true, errStream: stderr };

  it("draws progress on stderr only when it is a terminal and no --verbose trace goes there", () => {
    expect(createIoStreams({ ...base, isTTY: false, errIsTTY: true }).progress).toBe(stderr);
    expect(
      createIoStreams({ ...base, isTTY: false, errIsTTY: true, verbose: true }).progress,
    ).toBeUndefined();
    expect(createIoStreams({ ...base, isTTY: true, errIsTTY: false }).progress).toBeUndefined();
    expect(createIoStreams({ ...base, isTTY: true }).errIsTTY).toBe(false);
  });

  it("uses Unicode symbols on a terminal and plain ASCII elsewhere", () => {
    expect(createIoStreams({ ...base, isTTY: true }).symbols).toEqual({
      arrow: "→",
      ellipsis: "…",
    });
    expect(createIoStreams({ ...base, isTTY: false }).symbols).toEqual({
      arrow: "->",
      ellipsis: "...",
    });
  });
});
