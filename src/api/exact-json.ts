/**
 * JSON parsed with every number exact, for the client's responses and the server's batch
 * bodies alike: int64 ids stay exact, and a fraction or an exponent keeps the form it was
 * written in, so a checker can refuse it rather than see it rounded.
 */
import { parse } from "lossless-json";

/**
 * Could the text hold a number that JSON.parse would not keep exact, or whose form (a
 * fraction or exponent) it would hide? Any run of 16 digits (above 2^53 is possible) or a
 * digit next to ".", "e" or "E" says maybe.
 */
const MAYBE_INEXACT_NUMBER = /[0-9]{16}|[0-9][.eE]|[.eE][+-]?[0-9]/;

/**
 * A JSON string token. In valid JSON each `"` outside a string opens one, so matching from
 * the start finds exactly the strings (escapes included); what is left holds every number.
 */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g;

/**
 * Parses JSON keeping every number exact: as a LosslessNumber (lossless-json), or as a plain
 * number when the text holds only integers of at most 15 digits. Throws SyntaxError on text
 * that is not JSON.
 */
export function parseExactJson(text: string): unknown {
  // Every number is an integer of at most 15 digits: the native parser keeps it exact and
  // is many times faster than lossless-json on a large body (and than a reviver wrapping
  // each number). Strings are looked past: a time ("09:00:00.123Z") or a UUID ("…4e5f…")
  // in one would otherwise send every change feed page to the slow parser.
  return MAYBE_INEXACT_NUMBER.test(text) &&
    MAYBE_INEXACT_NUMBER.test(text.replace(JSON_STRING, '""'))
    ? parse(text)
    : JSON.parse(text);
}
