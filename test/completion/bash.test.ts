/**
 * The generated bash script in a real bash: source it, read the function `complete -p`
 * registered, call it with COMP_WORDS and COMP_CWORD as bash would on TAB, print COMPREPLY.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completionScript } from "../../src/completion/script.js";
import { realProgram } from "../program/real-program.js";

let dir: string;
let scriptPath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "petstore-bash-completion-"));
  scriptPath = join(dir, "petstore.bash");
  writeFileSync(scriptPath, completionScript("bash", realProgram()));
  for (const name of ["counts.csv", "counts.json", "notes.txt"]) writeFileSync(join(dir, name), "");
  mkdirSync(join(dir, "counted"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const DRIVER = `
set -eu
source "$1"
shift
registration=$(complete -p petstore)
function=\${registration#*-F }
function=\${function%% *}
COMP_WORDS=("$@")
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
COMP_LINE="\${COMP_WORDS[*]}"
COMP_POINT=\${#COMP_LINE}
COMPREPLY=()
"$function" petstore "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\\n' "$registration"
if (( \${#COMPREPLY[@]} )); then printf '%s\\n' "\${COMPREPLY[@]}"; fi
`;

/** The candidates bash offers when TAB is pressed at the end of `words` (last: the word typed). */
function complete(...words: string[]): string[] {
  const result = spawnSync(
    "bash",
    ["--norc", "--noprofile", "-c", DRIVER, "bash", scriptPath, ...words],
    {
      encoding: "utf8",
    },
  );
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  const [registration, ...candidates] = result.stdout.split("\n").slice(0, -1);
  expect(registration).toBe("complete -F _petstore petstore");
  return candidates;
}

describe("bash completion", () => {
  it.each([
    [["petstore", "inv"], ["inventory"]],
    [
      ["petstore", ""],
      ["inventory", "pets", "orders", "serve", "keys", "db", "completion"],
    ],
    [
      ["petstore", "keys", ""],
      ["create", "check"],
    ],
    [["petstore", "keys", "ch"], ["check"]],
    [
      ["petstore", "db", ""],
      ["backup", "copy"],
    ],
    [
      ["petstore", "keys", "create", "cron", "--scope", ""],
      ["read", "write"],
    ],
    [
      ["petstore", "inventory", ""],
      ["list", "get", "set", "adjust", "apply", "history", "changes", "low", "count"],
    ],
    [
      ["petstore", "--env", ""],
      ["production", "staging", "local"],
    ],
    [["petstore", "--env", "st"], ["staging"]],
    [["petstore", "--env", "=", "lo"], ["local"]],
    [
      ["petstore", "--env", "staging", "inventory", "l"],
      ["list", "low"],
    ],
    [["petstore", "--env", "staging", "inventory", "li"], ["list"]],
    [["petstore", "inventory", "list", "--st"], ["--status"]],
    [
      ["petstore", "inventory", "list", "--status", ""],
      ["available", "pending", "sold"],
    ],
    [["petstore", "inventory", "list", "--env", "local", "--status", "p"], ["pending"]],
    [
      ["petstore", "inventory", "apply", "--format", ""],
      ["csv", "json"],
    ],
    [["petstore", "inventory", "apply", "--d"], ["--dry-run"]],
    [
      ["petstore", "completion", ""],
      ["bash", "zsh", "fish"],
    ],
    [
      ["petstore", "orders", "list", "--"],
      ["--json", "--help"],
    ],
    [["petstore", "--version", "pe"], ["pets"]],
  ])("%j offers %j", (words, expected) => {
    expect(complete(...words)).toEqual(expected);
  });

  it("offers nothing for free values and for arguments that are not files", () => {
    expect(complete("petstore", "--timeout", "")).toEqual([]);
    expect(complete("petstore", "inventory", "set", "")).toEqual([]);
    expect(complete("petstore", "inventory", "set", "42", "")).toEqual([]);
  });

  it("completes file names for inventory apply <file>, serve's file options and keys check <file>", () => {
    // compgen -f lists in directory order; bash sorts before showing them.
    expect(complete("petstore", "inventory", "apply", join(dir, "count")).sort()).toEqual([
      join(dir, "counted"),
      join(dir, "counts.csv"),
      join(dir, "counts.json"),
    ]);
    expect(complete("petstore", "inventory", "apply", "--dry-run", join(dir, "no"))).toEqual([
      join(dir, "notes.txt"),
    ]);
    for (const option of ["--db", "--seed", "--api-keys-file"]) {
      expect(complete("petstore", "serve", option, join(dir, "counts.j"))).toEqual([
        join(dir, "counts.json"),
      ]);
    }
    expect(complete("petstore", "keys", "check", join(dir, "no"))).toEqual([
      join(dir, "notes.txt"),
    ]);
  });
});
