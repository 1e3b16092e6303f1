/**
 * `X-Change-Reason`: why a change was made, in the caller's words, kept in its history
 * record. The one rule, for the CLI's `--reason` and the server's header alike: 1 to 200
 * characters, none of them a control character or a line or paragraph separator.
 *
 * HTTP carries header values as bytes (in practice ISO-8859-1 text), so a reason travels as
 * its UTF-8 bytes, one header character per byte: "März" is sent as "MÃ¤rz" and read back.
 */

export const CHANGE_REASON_HEADER = "x-change-reason";
export const MAX_CHANGE_REASON_LENGTH = 200;

/** Control characters (C0, DEL, C1), lone surrogates, line and paragraph separators. */
const UNPRINTABLE = /[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]/u;

/**
 * `text` with every character the rule refuses replaced by `by`: for a reason made from a
 * file's name, and for text from a server shown on a terminal (an escape sequence would move
 * the cursor or retitle the window).
 */
export function replaceUnprintable(text: string, by: string): string {
  return text.replace(new RegExp(UNPRINTABLE.source, "gu"), by);
}

/** Checks a reason as a person wrote it; the reason for a refusal in words. */
export function checkChangeReason(
  reason: string,
): { ok: true; value: string } | { ok: false; problem: string } {
  const length = Array.from(reason).length;
  if (length === 0) return { ok: false, problem: "it is empty" };
  if (length > MAX_CHANGE_REASON_LENGTH) {
    return {
      ok: false,
      problem: `it is ${length} characters long; at most ${MAX_CHANGE_REASON_LENGTH} are allowed`,
    };
  }
  if (UNPRINTABLE.test(reason)) {
    return { ok: false, problem: "it holds a control character (a line break, a tab, ...)" };
  }
  return { ok: true, value: reason };
}

/**
 * A reason the program writes itself from text it does not control (a file's name): made
 * printable ("?" for what the rule refuses) and cut to the longest reason kept.
 */
export function fittedReason(text: string): string {
  return Array.from(replaceUnprintable(text, "?")).slice(0, MAX_CHANGE_REASON_LENGTH).join("");
}

/** The header value carrying `reason`: its UTF-8 bytes, one character each. */
export function encodeChangeReason(reason: string): string {
  return Buffer.from(reason, "utf8").toString("latin1");
}

/**
 * The reason a header value carries; undefined when its bytes are not UTF-8. A leading U+FEFF
 * is a character of the reason like any other, not a byte order mark to drop.
 */
export function decodeChangeReason(header: string): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
      Buffer.from(header, "latin1"),
    );
  } catch {
    return undefined;
  }
}
