/**
 * The man page tools of this machine, for tests that lint and render a generated page:
 * mandoc when installed (CI installs it), and groff, which most Linux systems have.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/temp-dir.js";

/** Whether `command` runs here (found on PATH and answers). */
export function hasTool(command: string, versionArgs: readonly string[] = ["--version"]): boolean {
  const result = spawnSync(command, versionArgs, { encoding: "utf8" });
  return result.error === undefined;
}

/** What a lint run said: the tool, its exit status and everything it printed. */
export interface LintResult {
  tool: string;
  status: number | null;
  output: string;
}

/**
 * Lints a page with every checker installed: `mandoc -T lint` (every level, style included),
 * and groff's man macros with every warning on, rendering for a UTF-8 terminal and for the C
 * locale (`-Tascii`: a character without an ASCII form is a warning). Empty when neither
 * mandoc nor groff is installed.
 */
export function lintPage(page: string): LintResult[] {
  const temp = tempDir("petstore-man-");
  try {
    const file = join(temp.dir, "petstore.1");
    writeFileSync(file, page);
    const runs: [string, string[]][] = [];
    if (hasTool("mandoc", ["-V"])) runs.push(["mandoc", ["-T", "lint", file]]);
    if (hasTool("groff")) {
      runs.push(["groff", ["-man", "-Tutf8", "-ww", "-z", file]]);
      runs.push(["groff", ["-man", "-Tascii", "-ww", "-z", file]]);
    }
    return runs.map(([command, args]) => {
      const result = spawnSync(command, args, { encoding: "utf8" });
      return {
        tool: [command, ...args.slice(0, -1)].join(" "),
        status: result.status,
        output: result.stdout + result.stderr,
      };
    });
  } finally {
    temp.remove();
  }
}

/**
 * The page as a reader sees it, by groff: plain text (no bold, no underline), each paragraph
 * on one line (a line length nothing reaches), whitespace runs as one space, and the minus
 * signs some systems print for `\-` as `-`. Undefined when groff is not installed.
 */
export function renderPage(page: string): string | undefined {
  if (!hasTool("groff")) return undefined;
  const result = spawnSync("groff", ["-man", "-Tutf8", "-P-cbou", "-rLL=5000n"], {
    input: page,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`groff failed: ${result.stderr}`);
  return plainText(result.stdout);
}

/** Whitespace runs as one space; U+2212 and U+2010 as `-`. */
export function plainText(text: string): string {
  return text.replace(/[\u2212\u2010]/g, "-").replace(/\s+/g, " ");
}

/**
 * Skips the running test, saying why on stderr as well as in the skip note: the default
 * reporter shows the one, not the other.
 */
export function skipBecause(context: { skip: (note?: string) => never }, reason: string): never {
  console.warn(`skipped: ${reason}`);
  return context.skip(reason);
}
