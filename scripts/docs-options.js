// `npm run docs`: writes the option tables between `<!-- options: COMMAND -->` and
// `<!-- /options -->` in README.md and docs/*.md, generated from the commander program in the
// words of --help (src/manual/option-blocks.ts), and the exit-code tables between
// `<!-- exit-codes: readme|scripts -->` and `<!-- /exit-codes -->`, from src/exit-codes.ts
// (src/manual/exit-code-tables.ts), formatted as Prettier formats Markdown.
// test/manual/guide-option-blocks.test.ts and exit-code-tables.test.ts fail when a block is
// not what this would write.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { loadManual } from "./load-manual.js";

const root = join(import.meta.dirname, "..");
const manual = await loadManual();
const program = manual.documentedProgram();

for (const file of manual.guideFiles(root)) {
  const path = join(root, file);
  const options = { ...(await resolveConfig(path)), filepath: path };
  const text = await readFile(path, "utf8");
  const prettier = (markdown) => format(markdown, options);
  const rendered = await manual.renderExitCodeBlocks(
    await manual.renderOptionBlocks(text, program, prettier),
    prettier,
  );
  if (rendered !== text) {
    await writeFile(path, rendered);
    console.log(`wrote the option and exit-code tables of ${file}`);
  }
}
