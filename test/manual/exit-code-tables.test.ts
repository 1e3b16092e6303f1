/**
 * One table of exit codes (src/exit-codes.ts): `petstore --help` lists it, and the "Exit
 * codes" tables of README.md and docs/scripts.md are what `npm run docs` writes from it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { describe, expect, it } from "vitest";
import { EXIT_CODE_TABLE, EXIT_CODES, exitCodesHelp } from "../../src/exit-codes.js";
import { renderExitCodeBlocks } from "../../src/manual/exit-code-tables.js";
import { runFake } from "../commands/fake-deps.js";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the one table of exit codes", () => {
  it("holds every exit code once, in order", () => {
    const listed = EXIT_CODE_TABLE.flatMap((row) => row.codes);
    expect(listed).toEqual(Object.values(EXIT_CODES));
  });

  it("is the Exit codes list of petstore --help", async () => {
    const result = await runFake(["--help"]);
    expect(result.stdout).toContain(`Exit codes:\n${exitCodesHelp()}\n\nExamples:`);
    expect(exitCodesHelp().split("\n").slice(0, 5)).toEqual([
      "  0        ok",
      "  1        unexpected failure (a bug)",
      "  2        usage or configuration (also a base URL that redirects: 3xx)",
      "  3        server or proxy unreachable, timed out, or failing (5xx, 429 after the retries);",
      "           a server certificate that is not trusted",
    ]);
  });

  it.for([
    { file: "README.md", name: "readme" },
    { file: "docs/scripts.md", name: "scripts" },
  ])("$file has the table npm run docs writes", async ({ file, name }) => {
    const path = join(ROOT, file);
    const text = readFileSync(path, "utf8");
    expect(text).toContain(`<!-- exit-codes: ${name} -->`);
    const options = { ...(await resolveConfig(path)), filepath: path };
    const rendered = await renderExitCodeBlocks(text, (markdown) => format(markdown, options));
    expect(rendered, `${file}: run npm run docs`).toBe(text);
  });

  it("refuses a marker that names no table", async () => {
    await expect(
      renderExitCodeBlocks("<!-- exit-codes: man -->\n<!-- /exit-codes -->\n", (text) =>
        Promise.resolve(text),
      ),
    ).rejects.toThrow("names no table");
  });
});
