/**
 * petstore(1), generated from the commander program as the completion scripts are: every
 * command of the tree (src/completion/command-tree.ts) with its usage, description, arguments,
 * options and the text of its --help, in the words --help prints. scripts/build.js writes it
 * to dist/petstore.1 on every build, so the installed page is the installed program's.
 */
import type { Command } from "commander";
import { documentedCommands } from "./commands.js";
import { ENVIRONMENT } from "./environment.js";
import { exitStatuses } from "./exit-status.js";
import { FILES } from "./files.js";
import {
  afterHelpBlocks,
  dedent,
  helpOptions,
  titledBlock,
  type HelpBlock,
  type HelpOption,
} from "./help-text.js";
import { roffArgument, roffBold, roffFilled, roffItalic, roffLine, roffLiteral } from "./roff.js";

/** What the page says about itself in its header line. */
export interface ManPageOptions {
  /** The package version: `petstore-inventory 0.1.0` in the page's footer. */
  version: string;
  /** The page's date, `YYYY-MM-DD`. */
  date: string;
}

/** The guides the page refers to, in the source repository. */
export const GUIDES = [
  { path: "docs/staff.md", about: "for store staff at a terminal" },
  {
    path: "docs/scripts.md",
    about: "for shell scripts: machine-readable output, exit codes, conditional writes",
  },
  {
    path: "docs/cron.md",
    about: "for cron jobs: the nightly export and reconcile, low-stock mail, backups",
  },
  {
    path: "docs/operating.md",
    about: "for running petstore serve: keys, probes, metrics, backups, PostgreSQL, systemd",
  },
] as const;

/** The root's --help blocks that have sections of their own. */
const OWN_SECTIONS = new Set(["Examples", "Exit codes"]);

function fullName(program: Command, path: readonly string[]): string {
  return [program.name(), ...path].join(" ");
}

/** `--env <env>` as `\fB\-\-env\fR \fI<env>\fR`; `-h, --help` with both names bold. */
function optionTermRoff(term: string): string {
  const placeholderAt = term.search(/ [<[]/);
  const names = placeholderAt === -1 ? term : term.slice(0, placeholderAt);
  const placeholder = placeholderAt === -1 ? "" : term.slice(placeholderAt + 1);
  const bold = names.split(/,\s*/).map(roffBold).join(", ");
  return placeholder === "" ? bold : `${bold} ${roffItalic(placeholder)}`;
}

function optionList(options: readonly HelpOption[]): string[] {
  return options.flatMap((option) => [
    ".TP",
    optionTermRoff(option.term),
    ...roffFilled(option.description),
  ]);
}

/** Prose as a filled paragraph; its indented lines (a command, a format) kept as they are. */
function proseLines(lines: readonly string[]): string[] {
  const out: string[] = [];
  let filled: string[] = [];
  let literal: string[] = [];
  const flush = () => {
    if (filled.length > 0) out.push(...roffFilled(filled.join(" ")));
    if (literal.length > 0) out.push(...roffLiteral(dedent(literal)));
    filled = [];
    literal = [];
  };
  for (const line of lines) {
    const indented = /^\s/.test(line);
    if (indented ? filled.length > 0 : literal.length > 0) flush();
    (indented ? literal : filled).push(line);
  }
  flush();
  return out;
}

function blockLines(block: HelpBlock): string[] {
  if (block.kind === "prose") return [".PP", ...proseLines(block.lines)];
  return [".PP", roffLine(`${block.title}:`), ...roffLiteral(block.lines)];
}

function header(program: Command, options: ManPageOptions): string[] {
  const name = program.name();
  const description = program.description();
  const summary = description.charAt(0).toLowerCase() + description.slice(1);
  return [
    `.\\" ${name}(1), generated from the commander program by src/manual/man-page.ts`,
    `.\\" (scripts/build.js writes it on every build): do not edit.`,
    `.TH ${roffArgument(name.toUpperCase())} 1 "${options.date}" ${roffArgument(`petstore-inventory ${options.version}`)} "User Commands"`,
    // No hyphens added at line ends (one inside an option or a path would be typed) and no
    // stretched spaces.
    ".nh",
    ".ad l",
    ".SH NAME",
    `${roffLine(name)} \\- ${roffLine(summary)}`,
    ".SH SYNOPSIS",
    `${roffBold(name)} [${roffItalic("global options")}] ${roffItalic("command")} [${roffItalic("options")}] [${roffItalic("arguments")}]`,
    ".br",
    `${roffBold(name)} ${roffItalic("command")} ${roffBold("--help")}`,
    ".br",
    `${roffBold(name)} ${roffBold("--version")}`,
  ];
}

function description(program: Command): string[] {
  const blocks = afterHelpBlocks(program).filter(
    (block) => block.kind === "prose" || !OWN_SECTIONS.has(block.title),
  );
  return [
    ".SH DESCRIPTION",
    ...roffFilled(`${program.description()}.`),
    ".PP",
    ...roffFilled(
      `${program.name()} talks HTTP to any server that implements the pet-store inventory service, and ships one: ${program.name()} serve. Data goes to standard output; messages, warnings and errors go to standard error. Every command has --help, with examples.`,
    ),
    ...blocks.flatMap(blockLines),
  ];
}

function commandSection(program: Command, path: readonly string[], command: Command): string[] {
  const help = command.createHelp();
  const lines = [
    `.SS ${roffArgument(fullName(program, path))}`,
    `${roffBold(fullName(program, path))} ${roffLine(command.usage())}`,
    ".PP",
    ...roffFilled(help.commandDescription(command)),
  ];
  if (command.registeredArguments.length > 0) {
    lines.push(".PP", "Arguments:");
    for (const argument of command.registeredArguments) {
      lines.push(
        ".TP",
        roffItalic(argument.name()),
        ...roffFilled(help.argumentDescription(argument)),
      );
    }
  }
  const options = helpOptions(command);
  if (options.length > 0) lines.push(".PP", "Options:", ...optionList(options));
  const prose = afterHelpBlocks(command).filter(
    (block) => block.kind === "prose" || block.title !== "Examples",
  );
  return [...lines, ...prose.flatMap(blockLines)];
}

function commands(program: Command): string[] {
  return [
    ".SH COMMANDS",
    ...documentedCommands(program).flatMap(({ path, command }) =>
      commandSection(program, path, command),
    ),
  ];
}

function globalOptions(program: Command): string[] {
  return [
    `.SH ${roffArgument("GLOBAL OPTIONS")}`,
    ...roffFilled(
      `Every command accepts them, before or after its name (${program.name()} --env staging inventory list, or ${program.name()} inventory list --env staging).`,
    ),
    ...optionList(helpOptions(program)),
  ];
}

function environment(): string[] {
  return [
    ".SH ENVIRONMENT",
    ...ENVIRONMENT.flatMap((group) => [
      `.SS ${roffArgument(group.heading)}`,
      ...group.variables.flatMap((variable) => [
        ".TP",
        variable.names.map(roffBold).join(", "),
        ...roffFilled(variable.description),
      ]),
    ]),
  ];
}

function exitStatus(): string[] {
  return [
    `.SH ${roffArgument("EXIT STATUS")}`,
    ...exitStatuses().flatMap((status) => [
      ".TP",
      roffBold(status.label),
      ...roffFilled(status.meaning),
    ]),
  ];
}

function files(): string[] {
  return [
    ".SH FILES",
    ...FILES.flatMap((file) => [".TP", roffItalic(file.path), ...roffFilled(file.description)]),
  ];
}

function examples(program: Command): string[] {
  const all = [{ path: [] as string[], command: program }, ...documentedCommands(program)];
  return [
    ".SH EXAMPLES",
    ...all.flatMap(({ path, command }) => {
      const lines = titledBlock(afterHelpBlocks(command), "Examples");
      if (lines === undefined) return [];
      return [`.SS ${roffArgument(fullName(program, path))}`, ...roffLiteral(lines, false)];
    }),
  ];
}

function seeAlso(): string[] {
  return [
    `.SH ${roffArgument("SEE ALSO")}`,
    ...roffFilled("The guides in the petstore-inventory source repository:"),
    ...GUIDES.flatMap((guide) => [".TP", roffItalic(guide.path), ...roffFilled(guide.about)]),
    ".PP",
    ...roffFilled(
      "Its README.md is installed with the package, in $(npm root -g)/petstore-inventory/.",
    ),
    ".PP",
    ".BR crontab (5),",
    ".BR pg_dump (1),",
    ".BR systemctl (1)",
  ];
}

/** The whole page, in roff with the man(7) macros. */
export function manPage(program: Command, options: ManPageOptions): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(options.date)) {
    throw new Error(`the page's date must be YYYY-MM-DD, not ${options.date}`);
  }
  const lines = [
    ...header(program, options),
    ...description(program),
    ...commands(program),
    ...globalOptions(program),
    ...environment(),
    ...exitStatus(),
    ...files(),
    ...examples(program),
    ...seeAlso(),
  ];
  return `${lines.join("\n")}\n`;
}
