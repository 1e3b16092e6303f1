/** Options every command accepts: target selection, HTTP behaviour, trace, colour. */
import { type Command, Option } from "commander";
import { TARGET_ENVS } from "../client/target.js";
import { wholeNumberOption } from "./arguments.js";

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRIES = 2;
const MAX_RETRIES = 10;

/** The global options, after parsing. */
export interface GlobalOptions {
  env: string | undefined;
  staging: boolean;
  baseUrl: string | undefined;
  timeout: number;
  retries: number;
  verbose: boolean;
  color: boolean;
}

/** Declares the global options on the root program. */
export function addGlobalOptions(program: Command): Command {
  return program
    .addOption(
      new Option(
        "--env <env>",
        "environment to talk to (default: PETSTORE_ENV, else production)",
      ).choices(TARGET_ENVS),
    )
    .option("--staging", "same as --env staging")
    .option("--base-url <url>", "base URL including /v1 (default: PETSTORE_BASE_URL)")
    .addOption(
      new Option("--timeout <ms>", "time allowed for each HTTP attempt, in milliseconds")
        .argParser(wholeNumberOption("a whole number of milliseconds", 1, 2_147_483_647))
        .default(DEFAULT_TIMEOUT_MS),
    )
    .addOption(
      new Option("--retries <n>", "retries after network errors, 429, 502, 503 and 504")
        .argParser(wholeNumberOption("a whole number of retries", 0, MAX_RETRIES))
        .default(DEFAULT_RETRIES),
    )
    .option("--verbose", "trace HTTP requests and responses on stderr (the key is redacted)")
    .option("--no-color", "never colour the output (also: NO_COLOR=1)");
}

/** Reads the global options from any command, checking their types. */
export function readGlobalOptions(command: Command): GlobalOptions {
  const values = command.optsWithGlobals<Record<string, unknown>>();
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const number = (value: unknown, fallback: number) =>
    typeof value === "number" ? value : fallback;
  return {
    env: text(values.env),
    staging: values.staging === true,
    baseUrl: text(values.baseUrl),
    timeout: number(values.timeout, DEFAULT_TIMEOUT_MS),
    retries: number(values.retries, DEFAULT_RETRIES),
    verbose: values.verbose === true,
    color: values.color !== false,
  };
}
