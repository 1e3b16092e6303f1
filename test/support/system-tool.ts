/**
 * A Debian package's program a test runs for real (pgbouncer, nginx: .ci/run installs them),
 * looked for where Debian puts it and on PATH, or at the one path a variable names (a path
 * that is not there shows the skip). Its tests skip, saying why, when it is not installed.
 */
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
