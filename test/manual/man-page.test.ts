/**
 * petstore(1) is generated from the program itself: every command, argument and option of
 * commander's tree is in it, in the words --help prints, with the exit codes of EXIT_CODES and
 * every PETSTORE_ variable the code reads; and text that roff would read as markup is escaped.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { EXIT_CODES } from "../../src/exit-codes.js";
import { documentedProgram } from "../../src/manual/documented-program.js";
import { ENVIRONMENT } from "../../src/manual/environment.js";
import { exitStatuses } from "../../src/manual/exit-status.js";
import { afterHelpBlocks, helpOptions, titledBlock } from "../../src/manual/help-text.js";
import { documentedCommands } from "../../src/manual/commands.js";
import { manPage } from "../../src/manual/man-page.js";
import { roffFilled, roffLine } from "../../src/manual/roff.js";
import { trickyProgram } from "./tricky-program.js";

const ROOT = join(import.meta.dirname, "..", "..");
const OPTIONS = { version: "1.2.3", date: "2026-01-31" };

/** The page's lines from `.SH TITLE` to the next `.SH`. */
function section(page: string, title: string): string {
  const lines = page.split("\n");
  const start = lines.findIndex((line) => line === `.SH ${title}` || line === `.SH "${title}"`);
  if (start === -1) throw new Error(`no section ${title}`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith(".SH "));
  return lines.slice(start, end === -1 ? undefined : end).join("\n");
}

function commanderPaths(command: Command, prefix: string[] = []): string[][] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    return [path, ...commanderPaths(sub, path)];
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path.endsWith(join("src", "manual")) ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("the man page of the real program", () => {
  const program = documentedProgram();
  const page = manPage(program, OPTIONS);

  it("has the sections of a man page, in order, under a header naming the version", () => {
    const headings = page.split("\n").filter((line) => line.startsWith(".SH "));
    expect(headings).toEqual([
      ".SH NAME",
      ".SH SYNOPSIS",
      ".SH DESCRIPTION",
      ".SH COMMANDS",
      '.SH "GLOBAL OPTIONS"',
      ".SH ENVIRONMENT",
      '.SH "EXIT STATUS"',
      ".SH FILES",
      ".SH EXAMPLES",
      '.SH "SEE ALSO"',
    ]);
    expect(page).toContain('.TH "PETSTORE" 1 "2026-01-31" "petstore\\-inventory 1.2.3"');
    expect(section(page, "NAME")).toContain(
      "petstore \\- read and set pet\\-store stock levels over HTTP",
    );
  });

  it("has a subsection for every command and verb commander has, parents first", () => {
    const headings = section(page, "COMMANDS")
      .split("\n")
      .filter((line) => line.startsWith(".SS "));
    const expected = commanderPaths(program).map(
      (path) => `.SS "${roffLine(["petstore", ...path].join(" "))}"`,
    );
    expect(headings).toEqual(expected);
    expect(expected).toContain('.SS "petstore inventory apply"');
    expect(expected).toContain('.SS "petstore db backup"');
  });

  it("gives each command its usage, description and arguments as --help does", () => {
    const commands = section(page, "COMMANDS");
    for (const { path, command } of documentedCommands(program)) {
      const help = command.createHelp();
      expect(commands).toContain(
        `\\fB${roffLine(["petstore", ...path].join(" "))}\\fR ${roffLine(command.usage())}\n`,
      );
      expect(commands).toContain(roffFilled(help.commandDescription(command)).join("\n"));
      for (const argument of command.registeredArguments) {
        expect(commands).toContain(
          `.TP\n\\fI${argument.name()}\\fR\n${roffFilled(help.argumentDescription(argument)).join("\n")}`,
        );
      }
    }
  });

  it("has every option of every command, its description exactly as --help prints it", () => {
    const commands = section(page, "COMMANDS");
    let checked = 0;
    for (const { command } of documentedCommands(program)) {
      const help = command.createHelp();
      for (const option of help.visibleOptions(command)) {
        // Every command's own -h, --help is listed once, with the global options.
        if (option.long === "--help") continue;
        const flags = [option.short, option.long].filter((flag) => flag !== undefined);
        for (const flag of flags) expect(commands).toContain(`\\fB${roffLine(flag)}\\fR`);
        expect(commands).toContain(roffFilled(help.optionDescription(option)).join("\n"));
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(40);
    expect(commands).toContain(
      roffFilled(
        'input format (default: from the extension, else the content) (choices: "csv", "json")',
      ).join("\n"),
    );
  });

  it("lists the program's own options, --version and --help included, as global options", () => {
    const global = section(page, "GLOBAL OPTIONS");
    const help = program.createHelp();
    const options = help.visibleOptions(program);
    expect(options.map((option) => option.long)).toEqual(
      expect.arrayContaining(["--env", "--base-url", "--no-color", "--version", "--help"]),
    );
    for (const option of options) {
      expect(global).toContain(roffFilled(help.optionDescription(option)).join("\n"));
    }
  });

  it("lists every exit code of EXIT_CODES with the meaning petstore --help gives it", () => {
    const statuses = exitStatuses();
    const listed = statuses.flatMap((status) => status.codes);
    expect([...listed].sort((a, b) => a - b)).toEqual(
      [...new Set(Object.values(EXIT_CODES))].sort((a, b) => a - b),
    );
    const exitSection = section(page, "EXIT STATUS");
    for (const status of statuses) {
      expect(exitSection).toContain(
        `.TP\n\\fB${status.label}\\fR\n${roffFilled(status.meaning).join("\n")}`,
      );
    }
    expect(statuses.find((status) => status.codes.includes(3))?.meaning).toBe(
      "server or proxy unreachable, timed out, or failing (5xx, 429 after the retries); a server certificate that is not trusted",
    );
    expect(statuses.at(-1)).toEqual({
      label: "130/143",
      codes: [130, 143],
      meaning: "interrupted (SIGINT / SIGTERM)",
    });
  });

  it("describes every PETSTORE_ variable the code reads", () => {
    const read = new Set<string>();
    for (const file of sourceFiles(join(ROOT, "src"))) {
      for (const match of readFileSync(file, "utf8").matchAll(/\bPETSTORE_[A-Z_]*[A-Z]\b/g)) {
        read.add(match[0]);
      }
    }
    const documented = ENVIRONMENT.flatMap((group) => group.variables.flatMap((v) => v.names));
    expect(read.size).toBeGreaterThan(5);
    expect([...read].filter((name) => !documented.includes(name))).toEqual([]);
    const environment = section(page, "ENVIRONMENT");
    for (const name of documented) expect(environment).toContain(`\\fB${roffLine(name)}\\fR`);
  });

  it("names the SQLite default and the keys file under FILES", () => {
    const files = section(page, "FILES");
    expect(files).toContain("\\fI./petstore.db\\fR");
    expect(files).toContain("\\fI/etc/petstore/keys\\fR");
  });

  it("shows every example of every command's --help, line for line", () => {
    const examples = section(page, "EXAMPLES");
    const all = [{ command: program }, ...documentedCommands(program)];
    let count = 0;
    for (const { command } of all) {
      for (const line of titledBlock(afterHelpBlocks(command), "Examples") ?? []) {
        expect(examples).toContain(`\n${roffLine(line)}\n`);
        count += 1;
      }
    }
    expect(count).toBeGreaterThan(40);
    // A crontab's \% stays a backslash and a percent sign.
    expect(examples).toContain('$(date +\\e%F).db"');
  });

  it("refers to the guides", () => {
    const seeAlso = section(page, "SEE ALSO");
    for (const guide of ["docs/staff.md", "docs/scripts.md", "docs/cron.md", "docs/operating.md"]) {
      expect(seeAlso).toContain(`\\fI${roffLine(guide)}\\fR`);
    }
  });

  it("refuses a date that is not YYYY-MM-DD", () => {
    expect(() => manPage(program, { version: "1.2.3", date: "31/01/2026" })).toThrow("YYYY-MM-DD");
  });
});

describe("roff escaping", () => {
  it("escapes backslashes, minus signs, quotes and non-ASCII characters", () => {
    expect(roffLine("C:\\Temp")).toBe("C:\\eTemp");
    expect(roffLine("--json")).toBe("\\-\\-json");
    expect(roffLine("it's `pwd` ^ ~")).toBe("it\\(aqs \\(gapwd\\(ga \\(ha \\(ti");
    expect(roffLine("key-1, …, café → bar")).toBe("key\\-1, ..., caf\\[u00E9] \\(-> bar");
    expect(roffLine("a\tb")).toBe("a b");
  });

  it("neutralises a leading dot, which roff would read as a request", () => {
    expect(roffLine(".TH oops")).toBe("\\&.TH oops");
    expect(roffLine("'so")).toBe("\\(aqso");
    expect(roffLine("a .b")).toBe("a .b");
  });

  it("cuts filled text into source lines of at most 80 bytes, each safe on its own", () => {
    const text = `${"word ".repeat(30)}.dot ${"more ".repeat(30)}`;
    const lines = roffFilled(text);
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(80);
    const unescaped = lines.map((line) => line.replace(/^\\&/, "")).join(" ");
    expect(unescaped).toBe(roffLine(text.trim().replace(/\s+/g, " ")));
    expect(roffFilled(`${"x".repeat(79)} .dot`)).toEqual(["x".repeat(79), "\\&.dot"]);
  });

  it("writes a page whose descriptions and examples cannot be read as markup", () => {
    const page = manPage(trickyProgram(), OPTIONS);
    expect(page).toContain("\n\\&.starts with a dot, like a roff request\n");
    expect(page).toContain("\n\\(aqquoted\\(aq at the start, like a roff request too\n");
    expect(page).toContain("\na path such as C:\\eTemp\\enew or \\efB, which is no font\n");
    expect(page).toContain("\n\\&.also a dot at the start of a line of prose\n");
    expect(page).toContain(
      "\npetstore dots \\-\\-path \\(aq.\\ex\\(aq \\(gapwd\\(ga \\(ti/a\\(hab\n",
    );
    expect(page).toContain("\n\\&.dotted example\n");
    // Every line that starts with a dot is one of the generator's own requests.
    const generated = new Set([
      '\\"',
      "TH",
      "nh",
      "ad",
      "SH",
      "SS",
      "PP",
      "TP",
      "RS",
      "RE",
      "nf",
      "fi",
      "br",
      "BR",
    ]);
    const requests = page
      .split("\n")
      .filter((line) => line.startsWith("."))
      .map((line) => /^\.(\S+)/.exec(line)?.[1] ?? line);
    expect(requests.filter((request) => !generated.has(request))).toEqual([]);
  });
});

describe("the options --help lists", () => {
  it("leave out the help option below the root, where every command has it", () => {
    const program = documentedProgram();
    expect(helpOptions(program).map((option) => option.term)).toContain("-h, --help");
    const list = documentedCommands(program).find(
      ({ path }) => path.join(" ") === "inventory list",
    );
    expect(helpOptions(list?.command ?? program).map((option) => option.term)).toEqual([
      "--status <status>",
      "--json",
      "--csv",
    ]);
  });
});
