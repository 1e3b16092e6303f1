/**
 * The generated page passes the man page linters without a message (mandoc -T lint where
 * installed; groff with every warning on, for UTF-8 and for ASCII, where installed), and a reader sees every option description
 * and every tricky text exactly as written. Without the tools, the tests skip and say why.
 */
import { describe, expect, it } from "vitest";
import { documentedProgram } from "../../src/manual/documented-program.js";
import { helpOptions } from "../../src/manual/help-text.js";
import { documentedCommands } from "../../src/manual/commands.js";
import { manPage } from "../../src/manual/man-page.js";
import { lintPage, plainText, renderPage, skipBecause } from "./roff-tools.js";
import { trickyProgram } from "./tricky-program.js";

const OPTIONS = { version: "1.2.3", date: "2026-01-31" };
const NO_TOOLS = "neither mandoc nor groff is installed (apt-get install mandoc): page not linted";

describe("linting the generated page", () => {
  it.for([
    ["the real program", documentedProgram],
    ["a program of tricky texts", trickyProgram],
  ] as const)("finds nothing to say about the page of %s", ([, program], context) => {
    const results = lintPage(manPage(program(), OPTIONS));
    if (results.length === 0) return skipBecause(context, NO_TOOLS);
    for (const result of results) {
      expect({ tool: result.tool, status: result.status, output: result.output }).toEqual({
        tool: result.tool,
        status: 0,
        output: "",
      });
    }
  });
});

describe("the page as a reader sees it (groff)", () => {
  it("shows every option description of every command exactly as --help prints it", (context) => {
    const program = documentedProgram();
    const text = renderPage(manPage(program, OPTIONS));
    if (text === undefined)
      return skipBecause(context, "groff is not installed: page not rendered");
    const commands = [program, ...documentedCommands(program).map(({ command }) => command)];
    for (const command of commands) {
      for (const option of helpOptions(command)) {
        expect(text).toContain(` ${plainText(option.term)} ${plainText(option.description)} `);
      }
    }
  });

  it("shows texts that start with dots and quotes, or hold backslashes, as written", (context) => {
    const text = renderPage(manPage(trickyProgram(), OPTIONS));
    if (text === undefined)
      return skipBecause(context, "groff is not installed: page not rendered");
    for (const written of [
      ".starts with a dot, like a roff request",
      "file 'quoted' at the start, like a roff request too",
      "--path <dir> a path such as C:\\Temp\\new or \\fB, which is no font",
      ".also a dot at the start of a line of prose",
      "petstore dots --path '.\\x' `pwd` ~/a^b .dotted example",
    ]) {
      expect(text).toContain(written);
    }
  });
});
