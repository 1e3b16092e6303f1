/** Text fitted to a terminal's columns: how wide it shows, and wrapped between words. */
import stringWidth from "string-width";

/** How many terminal columns text takes, its widest line (colour codes take none). */
export function shownWidth(text: string): number {
  return Math.max(0, ...text.split("\n").map((line) => stringWidth(line)));
}

const graphemes = new Intl.Segmenter();

/** Characters a reference breaks well after: `till-3/2026-11-27/receipt-12` at a `/` or `-`. */
const BREAKS_AFTER = new Set(["/", "-", ":", "_", ".", ",", ";", "?", "&", "="]);

/**
 * Where to cut `word`, wider than `width`: after its last separator (BREAKS_AFTER) that leaves
 * the line at least a third full, else after as many characters as fit (one at least).
 */
function cutIndex(word: string, width: number): number {
  let shown = 0;
  let fits = 0;
  let separator = 0;
  for (const { segment, index } of graphemes.segment(word)) {
    shown += stringWidth(segment);
    // One character at least, whole, however narrow the line.
    if (shown > width && fits > 0) break;
    fits = index + segment.length;
    if (BREAKS_AFTER.has(segment) && shown * 3 >= width) separator = fits;
  }
  return separator > 0 ? separator : fits;
}

/** The least room left on a line that a word too long for any line starts in (else a new one). */
const LEAST_ROOM = 8;

/**
 * `text` (plain: free text, no colour codes) in lines of at most `width` terminal columns (the
 * lines after the first: `restWidth`), broken between words where it can be; a word wider
 * than its line is cut after a separator such as `/` or `-` where it has one, else between
 * characters. Nothing is left out.
 */
export function wrapped(text: string, width: number, restWidth = width): string {
  const [first = "", ...rest] = text.split("\n");
  const fits = stringWidth(first) <= width && rest.every((line) => stringWidth(line) <= restWidth);
  if (width < 1 || restWidth < 1 || fits) return text;
  const lines: string[] = [];
  const room = () => (lines.length === 0 ? width : restWidth);
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(" ")) {
      const joined = line === "" ? word : `${line} ${word}`;
      if (stringWidth(joined) <= room()) {
        line = joined;
        continue;
      }
      let left = word;
      // A word too long for a whole line is cut anyway: it starts in the room this one has.
      const free = room() - stringWidth(line) - 1;
      if (line !== "" && stringWidth(word) > restWidth && free >= LEAST_ROOM) {
        const cut = cutIndex(word, free);
        line = `${line} ${word.slice(0, cut)}`;
        left = word.slice(cut);
      }
      if (line !== "") lines.push(line);
      while (stringWidth(left) > room()) {
        const cut = cutIndex(left, room());
        // One character wider than the line is the line.
        if (cut >= left.length) break;
        lines.push(left.slice(0, cut));
        left = left.slice(cut);
      }
      line = left;
    }
    lines.push(line);
  }
  return lines.join("\n");
}
