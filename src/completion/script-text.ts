/** What every generated completion script shares: its header facts and shell quoting. */

/** Names the program and version a script was generated from, for its header comment. */
export interface ScriptHeader {
  program: string;
  version: string;
}

/** A word in single quotes for bash and zsh (`it's` becomes `'it'\''s'`). */
export function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** One line of help text: descriptions may hold newlines, a completion menu may not. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
