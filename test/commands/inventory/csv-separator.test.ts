/**
 * A counts, changes or thresholds file exported by a spreadsheet with semicolons (or tabs)
 * between fields is refused naming its separator, by every command that reads CSV, before
 * anything is sent.
 */
import { describe, expect, it } from "vitest";
import { HttpStubs, runFake } from "../fake-deps.js";

const SEPARATOR = "petstore reads comma-separated CSV: export it with a comma between fields";

describe("a file separated by something other than commas", () => {
  it.each([
    [
      ["inventory", "apply", "counts.csv"],
      "petId;quantity\n1;5\n2;3\n",
      "error: counts.csv line 1: the file looks semicolon-separated; " +
        `${SEPARATOR} (a header line petId,quantity)\n` +
        "hint: fix the file and run again; nothing was applied\n",
    ],
    [
      ["inventory", "adjust", "--file", "counts.csv", "--ref-prefix", "till-1/2026-11-26"],
      '"petId";"delta"\r\n1;-1\r\n',
      "error: counts.csv line 1: the file looks semicolon-separated; " +
        `${SEPARATOR} (a header line petId,delta,ref)\n` +
        "hint: fix the file and run again; nothing was applied\n",
    ],
    [
      ["inventory", "low", "--thresholds", "counts.csv"],
      "petId;minimum\n1;3\n",
      "error: counts.csv line 1: the file looks semicolon-separated; " +
        `${SEPARATOR} (a header line petId,minimum)\n` +
        "hint: fix the file and run again; nothing was fetched\n",
    ],
    [
      ["inventory", "apply", "counts.csv"],
      "\uFEFF\npetId\tquantity\n1\t5\n",
      "error: counts.csv line 2: the file looks tab-separated; " +
        `${SEPARATOR} (a header line petId,quantity)\n` +
        "hint: fix the file and run again; nothing was applied\n",
    ],
  ])("%j is exit 2 naming the separator, nothing sent", async (argv, text, stderr) => {
    const stubs = new HttpStubs();
    const result = await runFake(argv, { stubs, files: { "counts.csv": text } });
    expect(result).toMatchObject({ code: 2, stdout: "", stderr });
    expect(stubs.calls()).toEqual([]);
  });
});
