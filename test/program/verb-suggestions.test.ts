/** Suggestions for unknown verbs never turn a read into a write. */
import { describe, expect, it } from "vitest";
import { editDistance, suggestVerb } from "../../src/program/verb-suggestions.js";
import { callsOf, mockAgent, runFake } from "../commands/fake-deps.js";

describe("unknown verbs, through the real program", () => {
  it("answers inventory view 1 with the read verbs, never with set, adjust or apply (exit 2)", async () => {
    const agent = mockAgent();
    const result = await runFake(["inventory", "view", "1"], { agent });
    expect(result).toMatchObject({
      code: 2,
      stdout: "",
      stderr:
        "error: unknown command 'view'\n" +
        "(to read, use: petstore inventory list, petstore inventory get, petstore inventory history or petstore inventory changes)\n" +
        "hint: see petstore inventory --help\n",
    });
    expect(callsOf(agent)).toEqual([]);
  });

  it.each([
    [["inventory", "lst"], "(Did you mean list?)"],
    [["inventory", "sett", "1", "2"], "(Did you mean set?)"],
    [["inventory", "aplly", "counts.csv"], "(Did you mean apply?)"],
    [
      ["inventory", "show"],
      "(to read, use: petstore inventory list, petstore inventory get, petstore inventory history or petstore inventory changes)",
    ],
    [["inventory", "gte", "1"], "(Did you mean get?)"],
    [["inventory", "got", "1"], "(Did you mean get?)"],
    [["inventory", "ajust", "1", "+1"], "(Did you mean adjust?)"],
    [["pets", "show", "1"], "(to read, use: petstore pets get)"],
    [["pets", "gte", "1"], "(Did you mean get?)"],
    [["orders", "lits"], "(Did you mean list?)"],
  ])("answers %j with %s (exit 2)", async (argv, suggestion) => {
    const agent = mockAgent();
    const result = await runFake(argv, { agent });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: unknown command '${argv[1] ?? ""}'\n${suggestion}\nhint: see petstore ${argv[0] ?? ""} --help\n`,
    );
    expect(callsOf(agent)).toEqual([]);
  });

  it("suggests nothing for a word close to no verb", async () => {
    const result = await runFake(["inventory", "frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: unknown command 'frobnicate'\nhint: see petstore inventory --help\n",
    );
  });
});

describe("suggestVerb", () => {
  const verbs = [
    { name: "list", read: true },
    { name: "get", read: true },
    { name: "set", read: false },
    { name: "adjust", read: false },
    { name: "apply", read: false },
  ];

  it("holds back a write verb two edits away, even one that commander would suggest", () => {
    expect(editDistance("sat", "set")).toBe(1);
    expect(editDistance("seet", "set")).toBe(1);
    expect(editDistance("sst", "set")).toBe(1);
    expect(editDistance("adjsut", "adjust")).toBe(1);
    expect(editDistance("ajdst", "adjust")).toBe(2);
    expect(suggestVerb("ajdst", verbs, "petstore inventory")).toBe(
      "\n(to read, use: petstore inventory list or petstore inventory get)",
    );
    expect(suggestVerb("adjsut", verbs, "petstore inventory")).toBe("\n(Did you mean adjust?)");
  });

  it("prefers the read verb a read word is close to", () => {
    expect(suggestVerb("gett", verbs, "petstore inventory")).toBe("\n(Did you mean get?)");
    expect(suggestVerb("get", verbs.slice(2), "petstore inventory")).toBe("");
  });

  it("names every verb at the same distance", () => {
    expect(suggestVerb("lis", [...verbs, { name: "lsi", read: true }], "p")).toBe(
      "\n(Did you mean one of list, lsi?)",
    );
  });
});
