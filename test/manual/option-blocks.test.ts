/**
 * The option tables `npm run docs` writes into guides: between the markers, from the commander
 * objects, in the words of --help, formatted so that `prettier --check` accepts the guide, and
 * nothing outside the markers touched.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { format } from "prettier";
import { describe, expect, it } from "vitest";
import { documentedProgram } from "../../src/manual/documented-program.js";
import { helpOptions } from "../../src/manual/help-text.js";
import { documentedCommands } from "../../src/manual/commands.js";
import {
  findOptionBlocks,
  markdownCell,
  optionsTable,
  renderOptionBlocks,
} from "../../src/manual/option-blocks.js";
import { shopProgram } from "./shop-program.js";

const FIXTURES = join(import.meta.dirname, "fixtures");

/** Prettier as the project runs it on Markdown. */
function formatMarkdown(markdown: string): Promise<string> {
  return format(markdown, { parser: "markdown", printWidth: 100 });
}

/** A cell's text as Markdown reads it: backslash escapes undone. */
function unescapeCell(cell: string): string {
  return cell.replace(/\\(.)/g, "$1");
}

/** The rows of a generated table as [option, description], as a reader of the table sees them. */
function rowsOf(table: string): [string, string][] {
  return table
    .split("\n")
    .slice(2)
    .map((row) => {
      const cells = row
        .slice(2, -2)
        .split(" | ")
        .map((cell) => cell.trim());
      return [unescapeCell(cells[0] ?? "").replace(/^`|`$/g, ""), unescapeCell(cells[1] ?? "")];
    });
}

describe("renderOptionBlocks on a guide of our own", () => {
  const guide = readFileSync(join(FIXTURES, "options-guide.md"), "utf8");
  const expected = readFileSync(join(FIXTURES, "options-guide.expected.md"), "utf8");

  it("writes each marked block's table and leaves every other line as it was", async () => {
    expect(await renderOptionBlocks(guide, shopProgram(), formatMarkdown)).toBe(expected);
  });

  it("changes nothing in a guide it has written, which Prettier leaves as it is", async () => {
    expect(await renderOptionBlocks(expected, shopProgram(), formatMarkdown)).toBe(expected);
    expect(await formatMarkdown(expected)).toBe(expected);
  });

  it("finds the blocks by their markers, a leading petstore optional", () => {
    expect(findOptionBlocks(guide).map((block) => [block.name, block.path])).toEqual([
      ["shop count", ["shop", "count"]],
      ["petstore shop count", ["shop", "count"]],
      ["petstore", []],
    ]);
  });

  it("leaves a guide without markers as it is", async () => {
    const text = "# Guide\n\n`<!-- options: shop count -->` is how a block starts.\n";
    expect(await renderOptionBlocks(text, shopProgram(), formatMarkdown)).toBe(text);
  });
});

describe("markers that cannot be rendered", () => {
  const render = (text: string) => renderOptionBlocks(text, shopProgram(), formatMarkdown);

  it("name the line of an opening marker without its closing one", async () => {
    await expect(render("# G\n\n<!-- options: shop count -->\n\ntext\n")).rejects.toThrow(
      "line 3: <!-- options: shop count --> has no <!-- /options --> after it",
    );
    await expect(
      render("<!-- options: shop count -->\n<!-- options: petstore -->\n<!-- /options -->\n"),
    ).rejects.toThrow("line 1: <!-- options: shop count --> has no <!-- /options -->");
  });

  it("name the line of a closing marker without an opening one", async () => {
    await expect(render("# G\n\n<!-- /options -->\n")).rejects.toThrow(
      "line 3: <!-- /options --> without an opening marker",
    );
  });

  it("name a command the program does not have", async () => {
    await expect(
      render("# G\n\n<!-- options: shop fetch -->\n<!-- /options -->\n"),
    ).rejects.toThrow("<!-- options: shop fetch --> (line 3) names no command of petstore");
  });

  it("in a fenced code block are examples, not markers", async () => {
    const text = "# G\n\n```markdown\n<!-- options: shop fetch -->\n<!-- /options -->\n```\n";
    expect(await render(text)).toBe(text);
  });
});

describe("optionsTable", () => {
  it("escapes what Markdown would read as markup, so a reader sees the text of --help", () => {
    const count = shopProgram().commands[0]?.commands[0];
    if (count === undefined) throw new Error("no shop count");
    const table = optionsTable(count);
    expect(table).toContain(
      "| `--tag <tag>` | rows whose tags hold a \\| or \\<tags\\>, \\*stars\\*, \\`ticks\\`, \\[links\\], a \\\\ backslash, snake_case and \\_emphasis\\_ \\& \\~tildes\\~ |",
    );
    expect(rowsOf(table)).toEqual(
      helpOptions(count).map((option) => [option.term, option.description]),
    );
  });

  it("has every option of every real command, as --help describes it", () => {
    const program = documentedProgram();
    const commands = [program, ...documentedCommands(program).map(({ command }) => command)];
    for (const command of commands) {
      const help = command.createHelp();
      const listed = help
        .visibleOptions(command)
        .filter((option) => command === program || option.long !== "--help")
        .map((option) => [help.optionTerm(option), help.optionDescription(option)]);
      expect(rowsOf(optionsTable(command))).toEqual(listed);
    }
  });

  it("keeps an underscore inside a word as it is", () => {
    expect(markdownCell("PETSTORE_ENV, _a_, b_")).toBe("PETSTORE_ENV, \\_a\\_, b\\_");
  });
});
