/** Text fitted to a terminal's columns: how wide it shows, and wrapped between words. */
import stringWidth from "string-width";

/** How many terminal columns text takes, its widest line (colour codes take none). */
export function shownWidth(text: string): number {
  return Math.max(0, ...text.split("\n").map((line) => stringWidth(line)));
}

const graphemes = new Intl.Segmenter();

/**
 * `text` (plain: free text, no colour codes) in lines of at most `width` terminal columns, broken between
 * words where it can be; a word wider than that is cut between characters.
 */
export function wrapped(text: string, width: number): string {
  if (width < 1 || shownWidth(text) <= width) return text;
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(" ")) {
      const joined = line === "" ? word : `${line} ${word}`;
      if (stringWidth(joined) <= width) {
        line = joined;
        continue;
      }
      if (line !== "") lines.push(line);
      line = "";
      for (const { segment } of graphemes.segment(word)) {
        if (line !== "" && stringWidth(line + segment) > width) {
          lines.push(line);
          line = "";
        }
        line += segment;
      }
    }
    lines.push(line);
  }
  return lines.join("\n");
}
