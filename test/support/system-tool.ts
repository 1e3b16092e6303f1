/**
 * A Debian package's program a test runs for real (pgbouncer, nginx: .ci/run installs them),
 * looked for where Debian puts it and on PATH, or at the one path a variable names (a path
 * that is not there shows the skip). Its tests skip, saying why, when it is not installed;
 * runSystemTool starts it and stops it.
 */
import { spawn, type SpawnOptions } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export interface SystemTool {
  /** The program's name on PATH (`pgbouncer`). */
  name: string;
  /** How the skip names it (`PgBouncer`). */
  shownAs: string;
  /** Where Debian installs it. */
  debianPath: string;
  /** The variable that names its one path instead (`PETSTORE_TEST_PGBOUNCER`). */
  variable: string;
}

function candidates(tool: SystemTool): string[] {
  const chosen = process.env[tool.variable];
  if (chosen !== undefined && chosen !== "") return [chosen];
  return [
    tool.debianPath,
    ...(process.env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => dir !== "")
      .map((dir) => join(dir, tool.name)),
  ];
}

/** The executable on this machine, or undefined. */
export function findSystemTool(tool: SystemTool): string | undefined {
  return candidates(tool).find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Why it cannot be run here (its tests then skip, saying so), or undefined. */
export function systemToolMissing(tool: SystemTool): string | undefined {
  if (findSystemTool(tool) !== undefined) return undefined;
  const chosen = process.env[tool.variable];
  return chosen !== undefined && chosen !== ""
    ? `${tool.shownAs} not installed (no ${chosen}, as ${tool.variable} says)`
    : `${tool.shownAs} not installed (no ${tool.debianPath}, no ${tool.name} on PATH)`;
}

/** A program a test started: what it printed, how it ended, and how to stop it. */
export interface RunningTool {
  /** Its stdout and stderr so far. */
  output(): string;
  /** How it ended (`exited with 1`, `could not be run: …`), or undefined while it runs. */
  exit(): string | undefined;
  /** SIGTERM, then SIGKILL if it has not exited in 5 s; resolves once it has exited. */
  stop(): Promise<void>;
}

/** Starts `executable` with `args`, its output kept for a failure's message. */
export function runSystemTool(
  executable: string,
  args: readonly string[],
  options: SpawnOptions = {},
): RunningTool {
  const child = spawn(executable, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.on("error", (error) => {
      exit ??= `could not be run: ${error.message}`;
      resolve();
    });
    child.on("exit", (code, signal) => {
      exit ??= `exited with ${signal ?? String(code)}`;
      resolve();
    });
  });
  return {
    output: () => output,
    exit: () => exit,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null || exit !== undefined) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
