/** Text a server sent, made safe for a terminal: each control character shows as U+FFFD. */
import { replaceUnprintable } from "../api/change-reason.js";

/**
 * `text` with every control character (C0, DEL, C1), lone surrogate and line or paragraph
 * separator replaced by U+FFFD: an escape sequence in a pet's name must not move the cursor,
 * recolour the terminal or retitle its window. For what people read; JSON stays exact.
 */
export function printable(text: string): string {
  return replaceUnprintable(text, "\uFFFD");
}
