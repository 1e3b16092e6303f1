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

/** The CLI running on a pseudo-terminal, typed into as a person or a barcode scanner types. */
export interface TtySession {
  /** Types `text` (a line ends with "\r", as the Enter key sends it; Ctrl-C is "\u0003"). */
  type(text: string): void;
  /** All the terminal showed so far, line ends as LF, without colours and cursor moves. */
  output(): string;
  /** Resolves once the terminal has shown `pattern` (rejects when the CLI exits first). */
  shows(pattern: string | RegExp): Promise<void>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * Starts the CLI on a pseudo-terminal (`script -qec`), its stdin and stderr terminals (stdout
 * too, unless `stdoutTo` sends it to a file): what the test types goes through the terminal
 * to the CLI, as keys do.
 */
export function spawnCliInTty(
  args: readonly string[],
  options: Omit<CliOptions, "input"> & {
    /** A file the CLI's stdout is redirected to (`> FILE`): only stdin and stderr are the terminal. */
    stdoutTo?: string;
  } = {},
): TtySession {
  assertBuilt();
  const command =
    [process.execPath, BIN, ...args].map(shellQuote).join(" ") +
    (options.stdoutTo === undefined ? "" : ` > ${shellQuote(options.stdoutTo)}`);
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    env: { ...childEnv(), TERM: "xterm-256color", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  const waiting = new Set<() => void>();
  const received = (chunk: Buffer) => {
    // What a person reads: escape sequences (colours, readline's cursor moves) taken out.
    output += chunk
      .toString()
      .replaceAll("\r\n", "\n")
      // eslint-disable-next-line no-control-regex -- the escape sequences are what it removes
      .replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
    for (const check of [...waiting]) check();
  };
  child.stdout.on("data", received);
  child.stderr.on("data", received);
  child.stdin.on("error", () => undefined);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const exited = (once(child, "close") as Promise<[number | null]>).then(([code]) => {
    clearTimeout(timer);
    return code;
  });
  return {
    type: (text) => {
      child.stdin.write(text);
    },
    output: () => output,
    shows: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found =
            typeof pattern === "string" ? output.includes(pattern) : pattern.test(output);
          if (!found) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
        void exited.then(() => {
          if (!waiting.has(check)) return;
          waiting.delete(check);
          reject(
            new Error(`the CLI exited before the terminal showed ${String(pattern)}:\n${output}`),
          );
        });
      }),
    exited,
  };
}
