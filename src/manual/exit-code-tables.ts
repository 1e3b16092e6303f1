/**
 * The "Exit codes" tables of README.md and docs/scripts.md, rendered from the one table
 * (src/exit-codes.ts). A guide marks where one goes:
 *
 *     <!-- exit-codes: readme -->
 *     <!-- /exit-codes -->
 *
 * (`readme`: code and meaning; `scripts`: also what a script should do), and `npm run docs`
 * writes the table between the markers; test/manual/exit-code-tables.test.ts fails on drift.
 */
import { EXIT_CODE_TABLE } from "../exit-codes.js";

/** The tables a marker may name. */
const TABLES = {
  readme: () =>
    markdownTable(
      ["code", "meaning"],
      EXIT_CODE_TABLE.map((row) => [row.codes.join(", "), row.readme]),
    ),
  scripts: () =>
    markdownTable(
      ["code", "meaning", "what a script should do"],
      EXIT_CODE_TABLE.map((row) => [row.codes.join(", "), row.scripts, row.scriptAction]),
    ),
} as const;

function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

const BLOCK = /^(<!--\s*exit-codes:\s*(\S+)\s*-->\n)([\s\S]*?)(^<!--\s*\/exit-codes\s*-->)$/gm;

/**
 * The guide with every exit-code block as `npm run docs` writes it: the table put through
 * `format` (Prettier, so `prettier --check` accepts the guide), between blank lines. Throws on
 * a marker that names no table.
 */
export async function renderExitCodeBlocks(
  markdown: string,
  format: (markdown: string) => Promise<string>,
): Promise<string> {
  const blocks = [...markdown.matchAll(BLOCK)];
  let out = "";
  let from = 0;
  for (const block of blocks) {
    const name = block[2] ?? "";
    if (!(name in TABLES)) {
      throw new Error(`<!-- exit-codes: ${name} --> names no table (readme, scripts)`);
    }
    const table = await format(TABLES[name as keyof typeof TABLES]());
    out += `${markdown.slice(from, block.index)}${block[1] ?? ""}\n${table.trim()}\n\n${block[4] ?? ""}`;
    from = block.index + block[0].length;
  }
  return out + markdown.slice(from);
}
