/** The `If-Match` request header (RFC 9110, 13.1.1) as the store's UpdateCondition. */
import { ERROR_CODES } from "../api/error-codes.js";
import { isValidQuantity } from "../api/limits.js";
import { HttpError } from "./http-error.js";
import type { UpdateCondition } from "./store/store.js";

/** What an `If-Match` header holds: `*`, or its entity tags as written (`"7"`, `W/"7"`). */
export type IfMatch = { kind: "any" } | { kind: "tags"; tags: readonly string[] };

/**
 * One entity-tag where the tokenizer stands (sticky): optional `W/`, then a quoted string of
 * etagc (%x21 / %x23-7E / obs-text). A comma is an etagc, so `"4,5"` is one tag.
 */
const ENTITY_TAG = /(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"/y;

/** `*` alone, with optional whitespace (OWS: spaces and tabs) around it. */
const ANY = /^[ \t]*\*[ \t]*$/;

/**
 * Parses an `If-Match` value; undefined when the header is absent. `If-Match = "*" /
 * #entity-tag` (RFC 9110): `*` alone, or a comma-separated list of entity tags with optional
 * whitespace, whose empty elements are skipped (RFC 9110, 5.6.1: a recipient accepts them) but
 * which holds at least one tag. Anything else (an unquoted tag, an empty header, `*` in a
 * list, two tags without a comma between them) is 400 `invalid_header`.
 */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  if (ANY.test(header)) return { kind: "any" };
  const tags = entityTagsOf(header);
  if (tags === undefined || tags.length === 0) {
    throw new HttpError(
      400,
      ERROR_CODES.invalidHeader,
      `If-Match must be * or a list of quoted entity tags such as "7", got ${JSON.stringify(header.slice(0, 80))}`,
    );
  }
  return { kind: "tags", tags };
}

/** The tags of `[ tag ] *( OWS "," OWS [ tag ] )`, walking quoted strings; undefined if malformed. */
function entityTagsOf(value: string): string[] | undefined {
  const tags: string[] = [];
  let at = skipWhitespace(value, 0);
  while (at < value.length) {
    if (value[at] === ",") {
      at = skipWhitespace(value, at + 1);
      continue;
    }
    ENTITY_TAG.lastIndex = at;
    const tag = ENTITY_TAG.exec(value)?.[0];
    if (tag === undefined) return undefined;
    tags.push(tag);
    at = skipWhitespace(value, at + tag.length);
    if (at < value.length && value[at] !== ",") return undefined;
  }
  return tags;
}

/** The index of the first character at or after `at` that is not OWS (a space or a tab). */
function skipWhitespace(value: string, at: number): number {
  let index = at;
  while (value[index] === " " || value[index] === "\t") index += 1;
  return index;
}

/**
 * The condition a parsed `If-Match` puts on a write. Comparison is strong (RFC 9110, 8.8.3.2,
 * required for If-Match): a weak tag `W/"7"` never matches, and neither does a tag that is not
 * an entry's ETag (`"07"`, `"abc"`, `"4,5"`); a list of only such tags fails on any existing entry.
 */
export function conditionOf(ifMatch: IfMatch): UpdateCondition {
  if (ifMatch.kind === "any") return { kind: "exists" };
  const quantities = new Set<number>();
  for (const tag of ifMatch.tags) {
    const match = /^"(0|[1-9][0-9]{0,9})"$/.exec(tag);
    if (match?.[1] === undefined) continue;
    const quantity = Number(match[1]);
    if (isValidQuantity(quantity)) quantities.add(quantity);
  }
  return { kind: "quantity_in", quantities: [...quantities] };
}
