/** What `keys create` and `keys check` print. */
import { KEY_SCOPES, type KeyScope } from "../api/api-keys.js";
import { tsvLine } from "./delimited.js";
import { renderTable } from "./table.js";
import type { IoStreams } from "./io-streams.js";
import { countOf } from "../text/plural.js";

/** A key as `keys check` reports it: never its digest. */
export interface CheckedKey {
  name: string;
  scope: KeyScope;
}

/** A new key once on stdout (for its user's file), its keys-file line on stderr. */
export function writeNewKey(key: string, keysFileLine: string, io: IoStreams): void {
  io.out.write(`${key}\n`);
  io.err.write(`${keysFileLine}\n`);
}

/**
 * Each key's name and scope (a table on a terminal, TSV piped) on stdout, and how many of each
 * scope on stderr.
 */
export function writeCheckedKeys(keys: readonly CheckedKey[], file: string, io: IoStreams): void {
  io.out.write(
    io.isTTY
      ? renderTable(
          {
            head: ["name", "scope"],
            rows: keys.map((key) => [key.name, key.scope]),
            wrappable: [0],
          },
          io,
        )
      : keys.map((key) => tsvLine([key.name, key.scope])).join(""),
  );
  io.err.write(`${countOf(keys.length, "key")} in ${file}: ${scopeCounts(keys)}\n`);
}

/** `2 write, 1 read`: every scope, write first (the one that can change stock). */
function scopeCounts(keys: readonly CheckedKey[]): string {
  return [...KEY_SCOPES]
    .reverse()
    .map((scope) => `${keys.filter((key) => key.scope === scope).length} ${scope}`)
    .join(", ");
}
