/**
 * Every command's --help ends with examples, and every example is a real command line of the
 * program: commander parses it (actions replaced by a recorder) down to a command that runs.
 */
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { runFake } from "../commands/fake-deps.js";
import { commandReached, petstoreWords, realProgram } from "./real-program.js";

function allPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return [path, ...allPaths(sub, path)];
  });
}

function examplesIn(help: string): string[] {
  const section = help.split("\nExamples:\n")[1] ?? "";
  const lines: string[] = [];
  for (const line of section.split("\n")) {
    if (!line.startsWith("  ")) break;
    lines.push(line.trim());
  }
  return lines;
}

const paths = allPaths(realProgram());
const GROUPS = ["inventory", "pets", "orders"];

describe("examples in --help", () => {
  it("cover every command", () => {
    expect(paths.map((path) => path.join(" "))).toEqual(
      expect.arrayContaining([...GROUPS, "completion", "inventory list", "serve"]),
    );
  });

  it.each([[[]], ...paths.map((path) => [path])])(
    "%j --help shows examples that are real commands of the program",
    async (path) => {
      const result = await runFake([...path, "--help"]);
      expect(result.code).toBe(0);
      const examples = examplesIn(result.stdout);
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) {
        const words = petstoreWords(example);
        expect(words[0], example).toBe("petstore");
        const reached = await commandReached(words.slice(1));
        // A group's examples may show any of its verbs; a verb's examples show that verb.
        const prefix = path.length === 0 ? "" : `${path.join(" ")} `;
        expect(`${reached} `.startsWith(prefix), example).toBe(true);
      }
    },
  );

  it.each(GROUPS.map((group) => [group]))("%s --help shows its verbs in use", async (group) => {
    const result = await runFake([group, "--help"]);
    expect(result.stdout).toContain(`\nExamples:\n  petstore `);
    const reached = await Promise.all(
      examplesIn(result.stdout).map((example) => commandReached(petstoreWords(example).slice(1))),
    );
    expect(reached.every((path) => path.startsWith(`${group} `))).toBe(true);
  });

  it("rejects an example that is not a command of the program", async () => {
    await expect(
      commandReached(petstoreWords("petstore inventory fetch 42").slice(1)),
    ).rejects.toThrow("unknown command 'fetch'");
    await expect(
      commandReached(petstoreWords("petstore orders list --csv").slice(1)),
    ).rejects.toThrow("unknown option '--csv'");
  });
});
