/** Suggestions for unknown verbs never turn a read into a write. */
import { describe, expect, it } from "vitest";
import { editDistance, suggestGroupFor, suggestVerb } from "../../src/program/verb-suggestions.js";
import { HttpStubs } from "../support/http-stubs.js";
import { runFake } from "../commands/fake-deps.js";

describe("unknown verbs, through the real program", () => {
  it("answers inventory view 1 with the read verbs, never with set, adjust or apply (exit 2)", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "view", "1"], { stubs });
    expect(result).toMatchObject({
      code: 2,
      stdout: "",
      stderr:
        "error: unknown command 'view'\n" +
        "(to read, use: petstore inventory list, petstore inventory get, petstore inventory history or petstore inventory changes)\n" +
        "hint: see petstore inventory --help\n",
    });
    expect(stubs.calls()).toEqual([]);
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
    const stubs = new HttpStubs();
    const result = await runFake(argv, { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: unknown command '${argv[1] ?? ""}'\n${suggestion}\nhint: see petstore ${argv[0] ?? ""} --help\n`,
    );
    expect(stubs.calls()).toEqual([]);
  });

  it("suggests nothing for a word close to no verb", async () => {
    const result = await runFake(["inventory", "frobnicate"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "error: unknown command 'frobnicate'\nhint: see petstore inventory --help\n",
    );
  });
});

describe("a verb typed without its group, through the real program", () => {
  it.each([
    [["list"], "(Did you mean petstore inventory list, or petstore orders list?)"],
    [["get", "42"], "(Did you mean petstore inventory get 42, or petstore pets get 42?)"],
    [["set", "42", "7"], "(Did you mean petstore inventory set 42 7?)"],
    [["adjust", "42", "-1"], "(Did you mean petstore inventory adjust 42 -1?)"],
    [
      ["--env", "local", "list", "--json"],
      "(Did you mean petstore --env local inventory list --json, or petstore --env local orders list --json?)",
    ],
    [
      ["set", "42", "7", "--reason", "it's counted"],
      "(Did you mean petstore inventory set 42 7 --reason 'it'\\''s counted'?)",
    ],
    [["lst"], "(Did you mean one of inventory list, orders list?)"],
    [["gte", "1"], "(Did you mean one of inventory get, pets get?)"],
    [["sett", "1", "2"], "(Did you mean inventory set?)"],
    [["pet", "1"], "(Did you mean pets?)"],
    [["inventry"], "(Did you mean inventory?)"],
    [
      ["view", "1"],
      "(to read, use: petstore inventory list, petstore inventory get, petstore inventory history, petstore inventory changes, petstore pets get or petstore orders list)",
    ],
  ])("answers petstore %j with %s, sending nothing (exit 2)", async (argv, suggestion) => {
    const stubs = new HttpStubs();
    const word = argv[0] === "--env" ? argv[2] : argv[0];
    const result = await runFake(argv, { stubs });
    expect(result).toMatchObject({
      code: 2,
      stdout: "",
      stderr: `error: unknown command '${word ?? ""}'\n${suggestion}\nhint: see petstore --help\n`,
    });
    expect(stubs.calls()).toEqual([]);
  });

  it("says nothing more for a word close to no command or verb", async () => {
    const result = await runFake(["frobnicate"]);
    expect(result).toMatchObject({
      code: 2,
      stderr: "error: unknown command 'frobnicate'\nhint: see petstore --help\n",
    });
  });

  it("offers only the verb that was typed: a read stays a read", () => {
    const groups = [
      {
        name: "inventory",
        verbs: [
          { name: "get", read: true },
          { name: "set", read: false },
        ],
      },
    ];
    expect(suggestGroupFor("get", ["get", "1"], groups)).toBe(
      "\n(Did you mean petstore inventory get 1?)",
    );
    expect(suggestGroupFor("gets", ["gets", "1"], groups)).toBeUndefined();
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
