/**
 * The JSON Schema patterns of the request headers whose grammar is more than a character
 * class: each accepts exactly the values the server accepts (test/api/openapi-header-patterns
 * proves it against the server's own readers on generated values).
 *
 * A header value is bytes; these patterns read it as Node.js and `fetch` do, one character
 * per byte (ISO-8859-1): obs-text is U+0080 to U+00FF, and a UTF-8 text is its bytes.
 */
import { MAX_CHANGE_REASON_LENGTH } from "./change-reason.js";

/** OWS: spaces and tabs. */
const OWS = "[ \\t]*";
/** entity-tag = [ weak ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text (RFC 9110). */
const ENTITY_TAG = '(W/)?"[!#-~\\x80-\\xff]*"';

/**
 * `If-Match = "*" / #entity-tag`: `*` alone, or a list of at least one entity tag whose
 * elements are separated by commas with optional whitespace, empty elements allowed (RFC
 * 9110, 5.6.1). A comma inside the quotes is part of the tag (`"4,5"`).
 */
export const IF_MATCH_PATTERN = `^${OWS}(\\*|[ \\t,]*${ENTITY_TAG}(${OWS},[ \\t,]*${ENTITY_TAG})*[ \\t,]*)${OWS}$`;

/** The continuation byte of a UTF-8 sequence. */
const TAIL = "[\\x80-\\xbf]";

/**
 * One character the reason rule keeps, as its UTF-8 bytes: well-formed UTF-8 (no overlong
 * form, no surrogate, nothing above U+10FFFF) that is not a control character (C0, DEL, C1:
 * U+0080-U+009F are C2 80-C2 9F) nor a line or paragraph separator (U+2028, U+2029: E2 80 A8,
 * E2 80 A9).
 */
const REASON_CHARACTER = [
  "[\\x20-\\x7e]",
  "\\xc2[\\xa0-\\xbf]",
  `[\\xc3-\\xdf]${TAIL}`,
  `\\xe0[\\xa0-\\xbf]${TAIL}`,
  `\\xe2(\\x80[\\x80-\\xa7\\xaa-\\xbf]|[\\x81-\\xbf]${TAIL})`,
  `[\\xe1\\xe3-\\xec\\xee\\xef]${TAIL}{2}`,
  `\\xed[\\x80-\\x9f]${TAIL}`,
  `\\xf0[\\x90-\\xbf]${TAIL}{2}`,
  `[\\xf1-\\xf3]${TAIL}{3}`,
  `\\xf4[\\x80-\\x8f]${TAIL}{2}`,
].join("|");

/**
 * `X-Change-Reason`: the UTF-8 bytes of 1 to 200 characters (code points), none of them a
 * control character or a line or paragraph separator.
 */
export const CHANGE_REASON_PATTERN = `^(${REASON_CHARACTER}){1,${MAX_CHANGE_REASON_LENGTH}}$`;

/** The most bytes a kept reason takes: 200 characters of 4 UTF-8 bytes each. */
export const MAX_CHANGE_REASON_BYTES = MAX_CHANGE_REASON_LENGTH * 4;
