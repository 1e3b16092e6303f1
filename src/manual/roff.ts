/**
 * Text into roff for a man(7) page: every character that roff would read as markup, or that
 * man renders as something else than what a user should type, written as an escape.
 */

/** Characters that roff reads, or that groff's UTF-8 output turns into typographic ones. */
const ESCAPES: Readonly<Record<string, string>> = {
  "\\": "\\e",
  // Options and examples are typed: a minus, never a hyphen (U+2010) that a shell rejects.
  "-": "\\-",
  "'": "\\(aq",
  "`": "\\(ga",
  "^": "\\(ha",
  "~": "\\(ti",
  // Typography that groff and mandoc can also print in the C locale (ASCII fallbacks).
  "\u2026": "...",
  "\u2014": "\\(em",
  "\u2013": "\\(en",
  "\u2018": "\\(oq",
  "\u2019": "\\(cq",
  "\u201C": "\\(lq",
  "\u201D": "\\(rq",
  "\u2192": "\\(->",
  "\u00D7": "\\(mu",
  "\u2264": "\\(<=",
  "\u2265": "\\(>=",
};

function escapeCharacter(character: string): string {
  const escaped = ESCAPES[character];
  if (escaped !== undefined) return escaped;
  const code = character.codePointAt(0) ?? 0;
  if (character === "\t") return " ";
  if (code < 0x20 || code === 0x7f) return "";
  if (code < 0x80) return character;
  return `\\[u${code.toString(16).toUpperCase().padStart(4, "0")}]`;
}

/**
 * One line of text as roff prints it: escapes for the characters above and for other non-ASCII
 * ones (`\[u00E9]`: shown in a UTF-8 locale; the lint tests' ASCII rendering flags them), and
 * `\&` before a leading `.` (roff would read the line as a request).
 */
export function roffLine(text: string): string {
  const escaped = Array.from(text, escapeCharacter).join("");
  return escaped.startsWith(".") ? `\\&${escaped}` : escaped;
}

/** Source lines longer than this draw a style warning from `mandoc -T lint`. */
const MAX_SOURCE_LINE = 80;

/**
 * Text as the lines of a filled paragraph: words joined by single spaces and escaped, and
 * cut into source lines of at most 80 bytes where a word allows (roff fills them again, so
 * where the source breaks does not show).
 */
export function roffFilled(text: string): string[] {
  const lines: string[] = [];
  let current = "";
  for (const word of text.split(/\s+/).filter((part) => part !== "")) {
    const candidate = current === "" ? word : `${current} ${word}`;
    if (current !== "" && Buffer.byteLength(roffLine(candidate)) > MAX_SOURCE_LINE) {
      lines.push(roffLine(current));
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current !== "") lines.push(roffLine(current));
  return lines;
}

/** Text as a quoted macro argument (`.SS "petstore inventory list"`). */
export function roffArgument(text: string): string {
  return `"${roffLine(text).replace(/^\\&/, "").replaceAll('"', "\\(dq")}"`;
}

/** Bold text, inline. */
export function roffBold(text: string): string {
  return `\\fB${roffLine(text).replace(/^\\&/, "")}\\fR`;
}

/** Italic text, inline. */
export function roffItalic(text: string): string {
  return `\\fI${roffLine(text).replace(/^\\&/, "")}\\fR`;
}

/**
 * Lines kept as they are (examples, aligned tables): not filled, each line escaped, indented
 * under the text before them unless `indent` is false.
 */
export function roffLiteral(lines: readonly string[], indent = true): string[] {
  const body = [
    ".nf",
    ...lines.map((line) => (line.trim() === "" ? ".sp" : roffLine(line))),
    ".fi",
  ];
  return indent ? [".RS", ...body, ".RE"] : body;
}
