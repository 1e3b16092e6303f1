/**
 * "Did you mean …?" for a mistyped verb, without ever turning a read into a write: commander
 * alone answers `inventory get 1` with "Did you mean set?", because get and set differ by one
 * letter. Here a group declares its read verbs; every other verb counts as a write.
 */
import type { Command } from "commander";

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

/**
 * The suggestion lines after "unknown command 'word'". The rule: the closest verbs within
 * commander's thresholds; a write verb only when `word` is one edit away from it and is not
 * itself a word for reading (get, show, view…). When no verb is suggested and `word` asks to
 * read, or a write verb was held back, the read verbs are named instead.
 */
export function suggestVerb(word: string, verbs: readonly Verb[], groupPath: string): string {
  let heldBack = false;
  let best = MAX_DISTANCE + 1;
  let similar: string[] = [];
  for (const verb of verbs) {
    const distance = editDistance(word, verb.name);
    const length = Math.max(word.length, verb.name.length);
    if (verb.name.length <= 1 || distance > MAX_DISTANCE) continue;
    if ((length - distance) / length <= MIN_SIMILARITY) continue;
    if (!verb.read && (distance > MAX_WRITE_DISTANCE || READ_WORDS.has(word))) {
      heldBack = true;
      continue;
    }
    if (distance < best) {
      best = distance;
      similar = [verb.name];
    } else if (distance === best) {
      similar.push(verb.name);
    }
  }
  similar.sort((a, b) => a.localeCompare(b));
  if (similar.length > 1) return `\n(Did you mean one of ${similar.join(", ")}?)`;
  if (similar.length === 1) return `\n(Did you mean ${similar[0] ?? ""}?)`;
  const reads = verbs.filter((verb) => verb.read).map((verb) => `${groupPath} ${verb.name}`);
  if ((heldBack || READ_WORDS.has(word)) && reads.length > 0) {
    const listed =
      reads.length > 1
        ? `${reads.slice(0, -1).join(", ")} or ${reads.at(-1) ?? ""}`
        : reads.join("");
    return `\n(to read, use: ${listed})`;
  }
  return "";
}

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current !== null; current = current.parent) {
    names.unshift(current.name());
  }
  return names.join(" ");
}

/**
 * Makes `group` answer an unknown verb with suggestVerb() instead of commander's suggestion.
 * Verbs not in `readVerbs` count as writes, so a verb added later is safe until declared.
 */
export function guardVerbSuggestions(group: Command, readVerbs: readonly string[]): Command {
  return group.on("command:*", (operands: string[]) => {
    const word = operands[0] ?? "";
    const verbs = group.commands.flatMap((command) =>
      [command.name(), ...command.aliases()].map((name) => ({
        name,
        read: readVerbs.includes(command.name()),
      })),
    );
    group.error(`error: unknown command '${word}'${suggestVerb(word, verbs, pathOf(group))}`, {
      code: "commander.unknownCommand",
    });
  });
}
