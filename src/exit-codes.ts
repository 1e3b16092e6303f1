/**
 * THE exit codes of `petstore`, each with what it means. `petstore --help`'s list, the man
 * page's EXIT STATUS and the "Exit codes" tables of README.md and docs/scripts.md are all
 * rendered from EXIT_CODE_TABLE (test/manual/exit-code-tables.test.ts fails on drift); which
 * error gets which code is decided in src/program/exit.ts.
 */
import type { OperatorFailure } from "./api/operator-error.js";

/** Each exit code by name. */
export const EXIT_CODES = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  unavailable: 3,
  unauthorized: 4,
  notFound: 5,
  invalid: 6,
  partialFailure: 7,
  /** A conditional write found the entry changed (412), or `adjust` gave up retrying. */
  conflict: 8,
  /** `inventory low` found entries below their threshold (the list is on stdout). */
  lowStock: 9,
  interruptedBySigint: 130,
  interruptedBySigterm: 143,
} as const;
export type ExitCodeName = keyof typeof EXIT_CODES;
export type ExitCode = (typeof EXIT_CODES)[ExitCodeName];

/**
 * The exit code for each kind of failure the operator's verbs name (serve, db backup, db copy:
 * OperatorError's `failure`); their --help states them from here.
 */
export const OPERATOR_EXIT_CODES = {
  configuration: EXIT_CODES.usage,
  unavailable: EXIT_CODES.unavailable,
  failed: EXIT_CODES.unexpected,
} as const satisfies Readonly<Record<OperatorFailure, ExitCode>>;

/** One row of the table: the codes that share a meaning, and that meaning for each reader. */
export interface ExitCodeMeaning {
  codes: readonly ExitCode[];
  /** The lines of `petstore --help`'s list, as it wraps them; the man page joins them. */
  help: readonly string[];
  /** The meaning in README.md's table (Markdown). */
  readme: string;
  /** The meaning in docs/scripts.md's table (Markdown), and what a script should do. */
  scripts: string;
  scriptAction: string;
}

/** Every exit code once, in order. */
export const EXIT_CODE_TABLE: readonly ExitCodeMeaning[] = [
  {
    codes: [EXIT_CODES.ok],
    help: ["ok"],
    readme: "success (for `apply`: every row applied or already right)",
    scripts: "success",
    scriptAction: "",
  },
  {
    codes: [EXIT_CODES.unexpected],
    help: ["unexpected failure (a bug)"],
    readme: "unexpected failure (a bug: say so; no stack trace unless `--verbose`)",
    scripts: "unexpected failure: a bug in `petstore`",
    scriptAction: "report it, with the `--verbose` output",
  },
  {
    codes: [EXIT_CODES.usage],
    help: ["usage or configuration (also a base URL that redirects: 3xx)"],
    readme:
      "usage: bad arguments, an unreadable or invalid input file, a missing base URL or key, `--max-changes` exceeded",
    scripts:
      "usage: bad arguments, missing base URL or key, unreadable key file; for `apply`, a bad counts file or `--max-changes` exceeded; for `count` from stdin, a line it refused (nothing posted)",
    scriptAction: "fix the call or the configuration; retrying will not help",
  },
  {
    codes: [EXIT_CODES.unavailable],
    help: [
      "server or proxy unreachable, timed out, or failing (5xx, 429 after the retries);",
      "a server certificate that is not trusted",
    ],
    readme: "server unreachable, timed out, or answered 5xx after retries",
    scripts:
      "server or proxy unreachable, timed out, answered 5xx (after retries), or answered something that is not a petstore response; also a bulk run (`apply`, `adjust --file`, `count`) stopped partway by such a server, after the report of what was applied",
    scriptAction: "retry later (a bulk run: as its hint says)",
  },
  {
    codes: [EXIT_CODES.unauthorized],
    help: ["authentication or permission failed (401, 403)"],
    readme: "authentication or permission failed (401, 403)",
    scripts: "authentication or permission failed (401, 403)",
    scriptAction: "fix the key",
  },
  {
    codes: [EXIT_CODES.notFound],
    help: ["not found (404)"],
    readme: "not found (404)",
    scripts: "not found (404): no such pet (or no such route: check the `/v1` in the base URL)",
    scriptAction: "",
  },
  {
    codes: [EXIT_CODES.invalid],
    help: ["request rejected as invalid (400, other 4xx)"],
    readme: "request rejected as invalid (400, other 4xx)",
    scripts: "request rejected as invalid (400, and other 4xx not listed above)",
    scriptAction: "fix the input",
  },
  {
    codes: [EXIT_CODES.partialFailure],
    help: [
      "inventory apply, adjust --file or count finished with some rows failed or",
      "in conflict (its report says which); a dry run in which some would fail",
    ],
    readme:
      "`apply`, `adjust --file` or `count` finished with some rows failed or in conflict, or a dry run in which some would (the report says which)",
    scripts:
      "`inventory apply`, `adjust --file` or `count` finished with some rows failed or in conflict (or a dry run in which some would fail); the report lists them",
    scriptAction: "read the report; re-running retries only what still differs",
  },
  {
    codes: [EXIT_CODES.conflict],
    help: [
      "conflict: set --if-quantity found the entry changed (412), or adjust gave up;",
      "nothing was changed",
    ],
    readme: "conflict: a conditional write found the entry changed (412), or `adjust` gave up",
    scripts:
      "conflict: `set --if-quantity` found the entry changed (412), or `adjust` gave up after `--attempts` rounds; nothing was changed",
    scriptAction: "read the entry again (`inventory get`) and decide",
  },
  {
    codes: [EXIT_CODES.lowStock],
    help: ["inventory low found pets below their threshold (the list is on stdout)"],
    readme: "`inventory low` found entries below their threshold (the list is on stdout)",
    scripts:
      "`inventory low` found entries below their threshold: the list is on stdout, nothing on stderr",
    scriptAction: "act on the list (mail it, reorder)",
  },
  {
    codes: [EXIT_CODES.interruptedBySigint, EXIT_CODES.interruptedBySigterm],
    help: ["interrupted (SIGINT / SIGTERM)"],
    readme:
      "interrupted by SIGINT / SIGTERM (`apply`, `adjust --file`: the report first, whatever the phase; `count`: the session kept, to resume)",
    scripts:
      "interrupted by SIGINT / SIGTERM; `apply` and `adjust --file` first print their report (changed, unchanged, failed, not attempted)",
    scriptAction: "run it again: a re-run applies only what still differs",
  },
];

/** `petstore --help`'s `Exit codes:` list: a row's codes, then its lines under each other. */
export function exitCodesHelp(): string {
  const column = "  130/143  ".length;
  return EXIT_CODE_TABLE.flatMap(({ codes, help }) =>
    help.map((line, index) =>
      index === 0
        ? `  ${codes.join("/").padEnd(column - 2)}${line}`
        : `${" ".repeat(column)}${line}`,
    ),
  ).join("\n");
}

/** The signals that interrupt a run. */
export const INTERRUPT_SIGNALS = ["SIGINT", "SIGTERM"] as const;
export type InterruptSignal = (typeof INTERRUPT_SIGNALS)[number];

/** 130 for SIGINT, 143 for SIGTERM (128 + the signal number, as shells report them). */
export function exitCodeForSignal(signal: InterruptSignal): ExitCode {
  return signal === "SIGINT" ? EXIT_CODES.interruptedBySigint : EXIT_CODES.interruptedBySigterm;
}
