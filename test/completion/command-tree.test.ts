/** The completion generators read the real program, so the scripts cannot drift from it. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { PET_STATUSES } from "../../src/api/types.js";
import { TARGET_ENVS } from "../../src/client/target.js";
import {
  allCommands,
  describeProgram,
  type CompletionCommand,
} from "../../src/completion/command-tree.js";
import { completionScript } from "../../src/completion/script.js";
import { SHELLS } from "../../src/completion/shells.js";
import { realProgram } from "../program/real-program.js";

function at(root: CompletionCommand, path: string): CompletionCommand {
  const found = allCommands(root).find((command) => command.path.join(" ") === path);
  if (found === undefined) throw new Error(`no command ${path}`);
  return found;
}

function optionNamed(command: CompletionCommand, name: string) {
  return [...command.options, ...command.inheritedOptions].find((option) =>
    option.names.includes(name),
  );
}

function commanderPaths(command: Command, prefix: string[] = []): string[] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return [path.join(" "), ...commanderPaths(sub, path)];
  });
}

describe("describeProgram on the real program", () => {
  const program = realProgram();
  const root = describeProgram(program);

  it("has every command commander has, and no other", () => {
    const paths = allCommands(root).map((command) => command.path.join(" "));
    expect(paths).toEqual(["", ...commanderPaths(program)]);
    expect(root.commands.map((command) => command.names[0])).toEqual([
      "inventory",
      "pets",
      "orders",
      "serve",
      "keys",
      "db",
      "completion",
    ]);
    expect(at(root, "keys").commands.map((command) => command.names[0])).toEqual([
      "create",
      "check",
    ]);
    expect(at(root, "db").commands.map((command) => command.names[0])).toEqual(["backup", "copy"]);
    expect(at(root, "inventory").commands.map((command) => command.names[0])).toEqual([
      "list",
      "get",
      "set",
      "adjust",
      "apply",
      "history",
      "changes",
      "low",
      "count",
    ]);
  });

  it("takes option values from argChoices", () => {
    expect(optionNamed(root, "--env")?.value).toEqual({ kind: "choices", choices: TARGET_ENVS });
    expect(optionNamed(at(root, "inventory list"), "--status")?.value).toEqual({
      kind: "choices",
      choices: PET_STATUSES,
    });
    expect(optionNamed(at(root, "inventory apply"), "--format")?.value).toEqual({
      kind: "choices",
      choices: ["csv", "json"],
    });
    expect(at(root, "completion").arguments).toEqual([
      { name: "shell", value: { kind: "choices", choices: SHELLS }, variadic: false },
    ]);
  });

  it("completes file names for <file> arguments and options", () => {
    for (const path of ["inventory apply", "keys check"]) {
      expect(at(root, path).arguments).toEqual([
        { name: "file", value: { kind: "files" }, variadic: false },
      ]);
    }
    const serve = at(root, "serve");
    for (const name of ["--db", "--seed", "--api-keys-file"]) {
      expect(optionNamed(serve, name)?.value).toEqual({ kind: "files" });
    }
    expect(optionNamed(serve, "--port")?.value).toEqual({ kind: "none" });
    expect(optionNamed(serve, "--demo")?.value).toBeUndefined();
    const adjust = at(root, "inventory adjust");
    expect(optionNamed(adjust, "--file")?.value).toEqual({ kind: "files" });
    expect(optionNamed(adjust, "--format")?.value).toEqual({
      kind: "choices",
      choices: ["csv", "json"],
    });
    expect(optionNamed(adjust, "--atomic")?.value).toBeUndefined();
    expect(optionNamed(at(root, "inventory apply"), "--atomic")?.value).toBeUndefined();
  });

  it("offers what each --help lists, and knows the global options a subcommand accepts", () => {
    const list = at(root, "inventory list");
    expect(list.options.flatMap((option) => option.names)).toEqual([
      "--status",
      "--json",
      "--csv",
      "-h",
      "--help",
    ]);
    expect(list.inheritedOptions.flatMap((option) => option.names)).toEqual([
      "--env",
      "--staging",
      "--base-url",
      "--timeout",
      "--retries",
      "--verbose",
      "--no-color",
    ]);
    expect(root.options.flatMap((option) => option.names)).toContain("--version");
  });
});

describe("completionScript", () => {
  const program = realProgram();

  it("writes a bash script that registers _petstore for petstore", () => {
    const script = completionScript("bash", program);
    expect(script).toMatch(/^# bash completion for petstore \d+\.\d+\.\d+/);
    expect(script.endsWith("complete -F _petstore petstore\n")).toBe(true);
    expect(script).toContain(
      "'inventory list/--status') _petstore_words 'available pending sold' ;;",
    );
    expect(spawnSync("bash", ["-n"], { input: script }).status).toBe(0);
  });

  it("writes a zsh script for $fpath, with descriptions", () => {
    const script = completionScript("zsh", program);
    expect(script.startsWith("#compdef petstore\n")).toBe(true);
    expect(script).toContain("'inventory:read and set stock levels'");
    expect(script).toContain("'serve/--db') _files ;;");
  });

  it("writes fish complete lines guarded by the command path", () => {
    const script = completionScript("fish", program);
    expect(script).toContain(
      `complete -c petstore -n "__petstore_in 'inventory list'" -l status -r -f -a 'available pending sold' -d 'show only pets with this status'`,
    );
    expect(script).toContain(`complete -c petstore -n "__petstore_at 'inventory apply' 0" -F`);
    expect(script).toContain(`-a 'orders' -d 'look at store orders'`);
  });
});

const HAS_ZSH = spawnSync("zsh", ["--version"]).status === 0;
const HAS_FISH = spawnSync("fish", ["--version"]).status === 0;

function checkedBy(shell: string, args: readonly string[], script: string) {
  const dir = mkdtempSync(join(tmpdir(), "petstore-completion-"));
  const file = join(dir, "script");
  writeFileSync(file, script);
  const result = spawnSync(shell, [...args, file], { encoding: "utf8" });
  rmSync(dir, { recursive: true, force: true });
  return result;
}

describe("syntax of the zsh and fish scripts (only where those shells are installed)", () => {
  it("zsh -n accepts the zsh script", ({ skip }) => {
    skip(!HAS_ZSH, "zsh is not installed here (apt-get install zsh to run this check)");
    const result = checkedBy("zsh", ["-n"], completionScript("zsh", realProgram()));
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("fish --no-execute accepts the fish script", ({ skip }) => {
    skip(!HAS_FISH, "fish is not installed here (apt-get install fish to run this check)");
    const result = checkedBy("fish", ["--no-execute"], completionScript("fish", realProgram()));
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("fish completes subcommands, option values and files with the script loaded", ({ skip }) => {
    skip(!HAS_FISH, "fish is not installed here (apt-get install fish to run this check)");
    const dir = mkdtempSync(join(tmpdir(), "petstore-completion-"));
    const file = join(dir, "petstore.fish");
    writeFileSync(file, completionScript("fish", realProgram()));
    const complete = (line: string) => {
      const result = spawnSync(
        "fish",
        ["--no-config", "-c", `source ${file}; complete -C '${line}'`],
        { encoding: "utf8" },
      );
      return result.stdout
        .split("\n")
        .filter((entry) => entry !== "")
        .map((entry) => entry.split("\t")[0]);
    };
    expect(complete("petstore inventory ")).toEqual([
      "adjust",
      "apply",
      "changes",
      "count",
      "get",
      "history",
      "list",
      "low",
      "set",
    ]);
    expect(complete("petstore --env ")).toEqual(["local", "production", "staging"]);
    expect(complete("petstore inventory list --st")).toEqual(["--status"]);
    expect(complete(`petstore inventory apply ${dir}/petst`)).toEqual([`${dir}/petstore.fish`]);
    rmSync(dir, { recursive: true, force: true });
  });
});
