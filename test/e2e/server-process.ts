/** Spawns the real `petstore serve` (the built bin) for end-to-end tests. */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import type { Readable } from "node:stream";

export const BIN = join(import.meta.dirname, "..", "..", "bin", "petstore.js");
export const E2E_KEY = "e2e-key-6c1f0d";

export interface ServerProcess {
  /** Base URL from the `listening on` line, ending in /v1. */
  url: string;
  child: ChildProcessByStdio<null, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` and resolves with the exit code (null when killed by the signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `petstore serve --port 0 --db <db> ...args` and waits for its `listening on` line. */
export async function startServer(
  db: string,
  args: readonly string[] = [],
  env: Record<string, string | undefined> = { PETSTORE_API_KEYS: E2E_KEY },
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", "--db", db, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = once(child, "exit");
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`server did not start: ${err}`));
    }, 15_000);
    child.stdout.on("data", () => {
      const match = /^listening on (http:\/\/\S+)\n/m.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${String(code)}: ${err}`));
    });
  });
  return {
    url,
    child,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}

/** Runs `petstore serve ...` expecting it to exit on its own; returns its exit code and output. */
export async function runServeToExit(
  args: readonly string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, "serve", "--port", "0", ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}
