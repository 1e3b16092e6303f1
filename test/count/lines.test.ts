import { describe, expect, it } from "vitest";
import { readCountLine } from "../../src/count/lines.js";

describe("readCountLine", () => {
  it.each([
    ["42", { kind: "add", petId: 42n, units: 1 }],
    ["  42 \r", { kind: "add", petId: 42n, units: 1 }],
    ["42 x5", { kind: "add", petId: 42n, units: 5 }],
    ["42x5", { kind: "add", petId: 42n, units: 5 }],
    ["42 X 5", { kind: "add", petId: 42n, units: 5 }],
    ["42 =5", { kind: "set", petId: 42n, count: 5 }],
    ["42=0", { kind: "set", petId: 42n, count: 0 }],
    ["9223372036854775807", { kind: "add", petId: 9223372036854775807n, units: 1 }],
    ["UNDO", { kind: "undo" }],
    [" ? ", { kind: "summary" }],
    ["Done", { kind: "done" }],
    ["", { kind: "blank" }],
    ["   ", { kind: "blank" }],
  ])("reads %j", (text, line) => {
    expect(readCountLine(text)).toEqual(line);
  });

  it.each([
    ["cat", '"cat" is not a line of a count'],
    ["42 x0", '"42 x0": xN adds N, a whole number from 1 to 2147483647'],
    ["42 x", '"42 x": xN adds N'],
    ["42 =-1", '"42 =-1": =N sets the count to N, a whole number from 0 to 2147483647'],
    ["42 =2147483648", "from 0 to 2147483647"],
    ["0", "petId 0: expected a whole number from 1 to 9223372036854775807"],
    ["042", "petId 042: leading zeros are not allowed; write 42"],
    ["9223372036854775808", "petId 9223372036854775808"],
    ["42 5", '"42 5" is not a line of a count'],
    ["x5", '"x5" is not a line of a count'],
  ])("refuses %j, saying why", (text, reason) => {
    const line = readCountLine(text);
    expect(line.kind).toBe("refused");
    expect(line.kind === "refused" && line.reason).toContain(reason);
  });

  it.each([
    ["42 x0", '"42 x0": xN adds N, a whole number from 1 to 2147483647'],
    [
      "42 =007",
      '"42 =007": =N sets the count to N, a whole number from 0 to 2147483647: leading zeros are not allowed; write 7',
    ],
  ])("names the range once: %j", (text, reason) => {
    expect(readCountLine(text)).toEqual({ kind: "refused", reason });
  });
});
