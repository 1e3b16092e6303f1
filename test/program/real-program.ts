/** The real `petstore` program, built on inert dependencies, for tests that read its tree. */
import { Writable } from "node:stream";
import type { Command } from "commander";
import type { Deps } from "../../src/program/deps.js";
import { Factory } from "../../src/program/factory.js";
import { rootCommand } from "../../src/commands/root.js";

const discard = () =>
  new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });

/** rootCommand() as run() builds it; nothing it could do reaches the outside world. */
export function realProgram(): Command {
  const deps: Deps = {
    stdout: discard(),
    stderr: discard(),
    stdoutIsTTY: false,
    env: {},
    readFile: () => Promise.reject(new Error("no files in this test")),
    sleep: () => Promise.resolve(),
    random: () => 0.5,
    newIdempotencyKey: () => "00000000-0000-4000-8000-000000000000",
    now: () => 0,
  };
  return rootCommand(new Factory(deps));
}

/**
 * The petstore words of a command line: from `petstore` to the first unquoted | > < ) ; & or
 * #. A shell expansion (`$(…)`, `$((…))`, `$VAR`, `${VAR}`) stands for one value, `1`, so
 * `--if-quantity "$q"` parses; a redirection's file descriptor (`2>`) is not a word.
 */
export function petstoreWords(example: string): string[] {
  const start = /(^|[\s(])petstore(\s|$)/.exec(example);
  if (start === null) throw new Error(`no petstore command in: ${example}`);
  const text = example.slice(start.index + (start[1] ?? "").length);
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let index = 0; index < text.length; index++) {
    const char = text.charAt(index);
    if (char === "$" && quote !== "'") {
      index = expansionEnd(text, index);
      word = `${word ?? ""}1`;
    } else if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else word = (word ?? "") + char;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= "";
    } else if ("|<>);&".includes(char) || (char === "#" && word === undefined)) {
      // The end of the command: a pipe, a redirection, a list, or a comment.
      if ((char === ">" || char === "<") && word !== undefined && /^\d+$/.test(word)) {
        word = undefined;
      }
      break;
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? "") + char;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The index of the last character of the expansion starting with `$` at `index`. */
function expansionEnd(text: string, index: number): number {
  const next = text.charAt(index + 1);
  if (next === "(" || next === "{") {
    const close = next === "(" ? ")" : "}";
    let depth = 0;
    for (let at = index + 1; at < text.length; at++) {
      if (text.charAt(at) === next) depth++;
      else if (text.charAt(at) === close && --depth === 0) return at;
    }
    return text.length - 1;
  }
  const name = /^[A-Za-z_][A-Za-z0-9_]*|^[?#$!@*0-9]/.exec(text.slice(index + 1));
  return index + (name?.[0].length ?? 0);
}

/** Parses `argv` with the real program whose actions only record which command ran. */
export async function commandReached(argv: readonly string[]): Promise<string> {
  const program = realProgram();
  const reached: string[] = [];
  const record = (command: Command, path: string) => {
    // Only verbs run; a group that got an action would swallow unknown verbs as arguments.
    if (command.commands.length === 0) {
      command.action(() => {
        reached.push(path);
      });
    }
    for (const sub of command.commands) record(sub, `${path} ${sub.name()}`.trim());
  };
  for (const sub of program.commands) record(sub, sub.name());
  await program.parseAsync([...argv], { from: "user" });
  if (reached.length !== 1) throw new Error(`${argv.join(" ")} reached ${reached.length} commands`);
  return reached[0] ?? "";
}
