/**
 * The option tables in README.md and docs/*.md are what `npm run docs` would write from the
 * program, so a guide cannot drift from --help. A guide without markers passes as it is.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { describe, expect, it } from "vitest";
import { documentedProgram } from "../../src/manual/documented-program.js";
import { guideFiles } from "../../src/manual/guide-files.js";
import { findOptionBlocks, renderOptionBlocks } from "../../src/manual/option-blocks.js";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the option tables of the guides", () => {
  const program = documentedProgram();

  it.for(guideFiles(ROOT))("%s has the tables npm run docs writes", async (file) => {
    const path = join(ROOT, file);
    const text = readFileSync(path, "utf8");
    const options = { ...(await resolveConfig(path)), filepath: path };
    const rendered = await renderOptionBlocks(text, program, (markdown) =>
      format(markdown, options),
    );
    const stale = findOptionBlocks(text)
      .filter((block, index) => block.content !== findOptionBlocks(rendered)[index]?.content)
      .map((block) => `<!-- options: ${block.name} -->`);
    expect(stale, `${file}: run npm run docs to rewrite ${stale.join(", ")}`).toEqual([]);
    expect(rendered).toBe(text);
  });
});
