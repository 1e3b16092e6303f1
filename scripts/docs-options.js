// `npm run docs`: writes the option tables between `<!-- options: COMMAND -->` and
// `<!-- /options -->` in README.md and docs/*.md, generated from the commander program in the
// words of --help (src/manual/option-blocks.ts), formatted as Prettier formats Markdown.
// test/manual/guide-option-blocks.test.ts fails when a block is not what this would write.
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
  const rendered = await manual.renderOptionBlocks(text, program, (markdown) =>
    format(markdown, options),
  );
  if (rendered !== text) {
    await writeFile(path, rendered);
    console.log(`wrote the option tables of ${file}`);
  }
}
