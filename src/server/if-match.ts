/** The `If-Match` request header (RFC 9110, 13.1.1) as the store's UpdateCondition. */
import { ERROR_CODES } from "../api/error-codes.js";
import { isValidQuantity } from "../api/limits.js";
import { HttpError } from "./http-error.js";
import type { UpdateCondition } from "./store/store.js";

/** What an `If-Match` header holds: `*`, or its entity tags as written (`"7"`, `W/"7"`). */
export type IfMatch = { kind: "any" } | { kind: "tags"; tags: readonly string[] };

/** One entity-tag: optional `W/`, then a quoted string of etagc (%x21 / %x23-7E / obs-text). */
const ENTITY_TAG = /^(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/**
 * Parses an `If-Match` value; undefined when the header is absent. `*`, or a comma-separated
 * list of entity tags (empty list elements are allowed, as RFC 9110, 5.6.1 asks). Anything
 * else (an unquoted tag, an empty header, `*` inside a list) is 400 `invalid_header`.
 */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === "*") return { kind: "any" };
  const tags = value
    .split(",")
    .map((element) => element.trim())
    .filter((element) => element !== "");
  if (tags.length === 0 || !tags.every((tag) => ENTITY_TAG.test(tag))) {
    throw new HttpError(
      400,
      ERROR_CODES.invalidHeader,
      `If-Match must be * or a list of quoted entity tags such as "7", got ${JSON.stringify(header.slice(0, 80))}`,
    );
  }
  return { kind: "tags", tags };
}

/**
 * The condition a parsed `If-Match` puts on a write. Comparison is strong (RFC 9110, 8.8.3.2,
 * required for If-Match): a weak tag `W/"7"` never matches, and neither does a tag that is not
 * an entry's ETag (`"07"`, `"abc"`); a list of only such tags fails on any existing entry.
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
