/** The CLI on a pseudo-terminal, as a person at a terminal runs it (util-linux `script`). */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { assertBuilt, BIN, childEnv } from "./binary.js";
import type { CliOptions } from "./cli.js";

/** Whether `script` (util-linux) is available to run a command on a pseudo-terminal. */
export const HAS_SCRIPT =
  process.platform === "linux" && spawnSync("script", ["--version"]).status === 0;

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * Runs the CLI on a pseudo-terminal (under `script -qec`), as a person at a terminal would.
 * stdout and stderr both go to the terminal, so they arrive together in `output`, with CRLF
 * line ends turned back into LF.
 */
export async function runCliInTty(
  args: readonly string[],
  options: Omit<CliOptions, "input"> = {},
): Promise<{ code: number | null; output: string }> {
  assertBuilt();
  const command = [process.execPath, BIN, ...args].map(shellQuote).join(" ");
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    env: { ...childEnv(), TERM: "xterm-256color", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(timer);
  return { code, output: output.replaceAll("\r\n", "\n") };
}
