/**
 * "Did you mean …?" for a mistyped verb, without ever turning a read into a write: commander
 * alone answers `inventory get 1` with "Did you mean set?", because get and set differ by one
 * letter. Here a group declares its read verbs; every other verb counts as a write.
 */
import type { Command } from "commander";
import { shellWord } from "../text/shell-word.js";

/** Words that ask to read something: never answered with a write verb. */
const READ_WORDS: ReadonlySet<string> = new Set([
  "cat",
  "check",
  "describe",
  "display",
  "fetch",
  "find",
  "get",
  "history",
  "info",
  "inspect",
  "list",
  "ls",
  "print",
  "query",
  "read",
  "search",
  "show",
  "status",
  "view",
]);

// Commander's thresholds: at most two edits, and more than 40% of the longer word unchanged.
const MAX_DISTANCE = 2;
const MIN_SIMILARITY = 0.4;
/** A write verb is suggested only for a single slip of the keyboard. */
const MAX_WRITE_DISTANCE = 1;

/** Optimal string alignment distance: insertions, deletions, substitutions, transpositions. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const above = rows[i - 1];
      const best =
        above === undefined
          ? j
          : Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost);
      const twoAbove = rows[i - 2];
      row[j] =
        twoAbove !== undefined && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]
          ? Math.min(best, (twoAbove[j - 2] ?? 0) + 1)
          : best;
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? Math.max(a.length, b.length);
}

/** A verb of a group and whether it only reads. */
export interface Verb {
  name: string;
  read: boolean;
}

/** A word a suggestion may offer: `name` is compared with what was typed, `shown` is printed. */
interface Candidate {
  name: string;
  read: boolean;
  shown: string;
}

/**
 * The candidates closest to `word` within commander's thresholds, a write only when `word` is
 * one edit away from it and is not itself a word for reading; and whether a write was held back.
 */
function closestCandidates(
  word: string,
  candidates: readonly Candidate[],
): { similar: string[]; heldBack: boolean; distance: number } {
  let heldBack = false;
  let best = MAX_DISTANCE + 1;
  let similar: string[] = [];
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate.name);
    const length = Math.max(word.length, candidate.name.length);
    if (candidate.name.length <= 1 || distance > MAX_DISTANCE) continue;
    if ((length - distance) / length <= MIN_SIMILARITY) continue;
    if (!candidate.read && (distance > MAX_WRITE_DISTANCE || READ_WORDS.has(word))) {
      heldBack = true;
      continue;
    }
    if (distance < best) {
      best = distance;
      similar = [candidate.shown];
    } else if (distance === best && !similar.includes(candidate.shown)) {
      similar.push(candidate.shown);
    }
  }
  similar.sort((a, b) => a.localeCompare(b));
  return { similar, heldBack, distance: best };
}

/** "a, b or c". */
function alternatives(words: readonly string[]): string {
  return words.length > 1
    ? `${words.slice(0, -1).join(", ")} or ${words.at(-1) ?? ""}`
    : words.join("");
}

/** The suggestion line for the closest candidates, or the read verbs when a read was meant. */
function suggestionLine(word: string, candidates: readonly Candidate[], reads: string[]): string {
  const { similar, heldBack } = closestCandidates(word, candidates);
  if (similar.length > 1) return `\n(Did you mean one of ${similar.join(", ")}?)`;
  if (similar.length === 1) return `\n(Did you mean ${similar[0] ?? ""}?)`;
  if ((heldBack || READ_WORDS.has(word)) && reads.length > 0) {
    return `\n(to read, use: ${alternatives(reads)})`;
  }
  return "";
}

/**
 * The suggestion lines after "unknown command 'word'". The rule: the closest verbs within
 * commander's thresholds; a write verb only when `word` is one edit away from it and is not
 * itself a word for reading (get, show, view…). When no verb is suggested and `word` asks to
 * read, or a write verb was held back, the read verbs are named instead.
 */
export function suggestVerb(word: string, verbs: readonly Verb[], groupPath: string): string {
  const candidates = verbs.map((verb) => ({ ...verb, shown: verb.name }));
  const reads = verbs.filter((verb) => verb.read).map((verb) => `${groupPath} ${verb.name}`);
  return suggestionLine(word, candidates, reads);
}

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent) {
    names.unshift(current.name());
  }
  return names.join(" ");
}

/** The read verbs each guarded group declared, for the suggestions of the program above it. */
const DECLARED_READS = new WeakMap<Command, readonly string[]>();

/** A group's verbs, aliases too, each marked read or write as the group declared. */
function verbsOf(group: Command, readVerbs: readonly string[]): Verb[] {
  return group.commands.flatMap((command) =>
    [command.name(), ...command.aliases()].map((name) => ({
      name,
      read: readVerbs.includes(command.name()),
    })),
  );
}

/**
 * Makes `group` answer an unknown verb with suggestVerb() instead of commander's suggestion.
 * Verbs not in `readVerbs` count as writes, so a verb added later is safe until declared.
 */
export function guardVerbSuggestions(group: Command, readVerbs: readonly string[]): Command {
  DECLARED_READS.set(group, readVerbs);
  return group.on("command:*", (operands: string[]) => {
    const word = operands[0] ?? "";
    group.error(
      `error: unknown command '${word}'${suggestVerb(word, verbsOf(group, readVerbs), pathOf(group))}`,
      { code: "commander.unknownCommand" },
    );
  });
}

/**
 * The suggestion for a verb typed without its group (`petstore list`, `petstore set 42 7`):
 * the same command line with each group that has that verb put in front of it, the inventory
 * first, as the program's groups come. `argv` is the command line after `petstore`. Only the
 * verb that was typed is offered, so a read never becomes a write. Undefined when no group has
 * the verb.
 */
export function suggestGroupFor(
  word: string,
  argv: readonly string[],
  groups: readonly { name: string; verbs: readonly Verb[] }[],
): string | undefined {
  const at = argv.indexOf(word);
  if (at === -1) return undefined;
  const lines = groups
    .filter((group) => group.verbs.some((verb) => verb.name === word))
    .map((group) =>
      ["petstore", ...argv.slice(0, at), group.name, ...argv.slice(at)].map(shellWord).join(" "),
    );
  if (lines.length === 0) return undefined;
  return `\n(Did you mean ${lines.join(", or ")}?)`;
}

/**
 * Makes the program answer an unknown command that is a verb of a group (`petstore list`) with
 * that group's command (suggestGroupFor), and any other word with the closest of its commands,
 * else of its groups' verbs, under the rule of suggestVerb (a write only for one slip of the
 * keyboard, never for a word for reading). `argv` is the command line it parses, after
 * `petstore`, which the suggestion repeats.
 */
export function guardRootSuggestions(program: Command, argv: readonly string[]): Command {
  return program.on("command:*", (operands: string[]) => {
    const word = operands[0] ?? "";
    const groups = program.commands.flatMap((command) => {
      const reads = DECLARED_READS.get(command);
      return reads === undefined ? [] : [{ name: command.name(), verbs: verbsOf(command, reads) }];
    });
    const commands: Candidate[] = program.commands.map((command) => ({
      name: command.name(),
      read: true,
      shown: command.name(),
    }));
    const verbs: Candidate[] = groups.flatMap((group) =>
      group.verbs.map((verb) => ({ ...verb, shown: `${group.name} ${verb.name}` })),
    );
    const reads = groups.flatMap((group) =>
      group.verbs.filter((verb) => verb.read).map((verb) => `petstore ${group.name} ${verb.name}`),
    );
    // The closer of the program's commands (`pet`: pets) and its groups' verbs (`lst`: list),
    // the commands on a tie.
    const toCommand = closestCandidates(word, commands);
    const suggestion =
      suggestGroupFor(word, argv, groups) ??
      (toCommand.similar.length > 0 && toCommand.distance <= closestCandidates(word, verbs).distance
        ? suggestionLine(word, commands, [])
        : suggestionLine(word, verbs, reads));
    program.error(`error: unknown command '${word}'${suggestion}`, {
      code: "commander.unknownCommand",
    });
  });
}
