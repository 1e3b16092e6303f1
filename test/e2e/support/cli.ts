/** The real CLI binary, spawned: run to its exit, left running for signals, or recorded loading. */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { tempDir } from "../../support/temp-dir.js";
import { assertBuilt, BIN, childEnv, ROOT, type Env } from "./binary.js";

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The child's whole environment besides PATH/HOME/TMPDIR (nothing else is inherited). */
  env?: Env;
  /** Written to stdin, then closed. */
  input?: string;
  /** spawnCli only: leave stdin open for the test to write to (`process.stdin`). */
  openStdin?: boolean;
  /** Kill the child after this long (default 20 s). */
  timeoutMs?: number;
  /** Options for node itself, before the script (`--import …`). */
  nodeArgs?: readonly string[];
}

/** Runs `node bin/petstore.js ...args` with stdout and stderr piped, until it exits. */
export async function runCli(
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliResult> {
  const child = spawnCli(args, options);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

function writeInput(stdin: Writable, input: string | undefined): void {
  stdin.on("error", () => undefined); // the CLI may exit without reading stdin
  stdin.end(input ?? "");
}

export interface SpawnedCli {
  process: ChildProcessByStdio<Writable, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  /** Resolves once stderr contains `text` (rejects if the CLI exits first). */
  stderrContains(text: string): Promise<void>;
  /** Resolves with the exit code (the child is killed after `timeoutMs`, default 20 s). */
  exited: Promise<number | null>;
}

/** Starts `node bin/petstore.js ...args` and leaves it running, for tests that signal it. */
export function spawnCli(args: readonly string[], options: CliOptions = {}): SpawnedCli {
  assertBuilt();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], {
    env: { ...childEnv(), ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  if (options.openStdin === true) child.stdin.on("error", () => undefined);
  else writeInput(child.stdin, options.input);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const exited = (once(child, "close") as Promise<[number | null]>).then(([code]) => {
    clearTimeout(timer);
    return code;
  });
  return {
    process: child,
    stdout: () => stdout,
    stderr: () => stderr,
    stderrContains: (text) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (stderr.includes(text)) resolve();
        };
        child.stderr.on("data", check);
        check();
        void exited.then(() => {
          reject(new Error(`the CLI exited before printing ${JSON.stringify(text)}:\n${stderr}`));
        });
      }),
    exited,
  };
}

export interface RecordedRun extends CliResult {
  /** The files of dist/ the run loaded (relative to the root), in the order it loaded them. */
  files: string[];
  /**
   * The sources bundled into those files, from esbuild's `// path` markers:
   * `src/cli.ts`, `node_modules/undici/index.js`, …
   */
  bundled: string[];
  /** The same with a package named by its directory: `node_modules/commander`, … */
  sources: string[];
}

/**
 * Runs the CLI under test/e2e/record-modules.js, a module-loading hook, and reports which
 * files of dist/ it loaded and which bundled sources they hold.
 */
export async function runCliRecordingModules(
  args: readonly string[],
  options: Omit<CliOptions, "nodeArgs"> = {},
): Promise<RecordedRun> {
  const temp = tempDir();
  const log = join(temp.dir, "modules.log");
  writeFileSync(log, "");
  const result = await runCli(args, {
    ...options,
    env: { ...options.env, PETSTORE_TEST_MODULE_LOG: log },
    nodeArgs: ["--import", pathToFileURL(join(ROOT, "test", "e2e", "record-modules.js")).href],
  });
  const distFiles = readFileSync(log, "utf8")
    .split("\n")
    .filter((url) => url.startsWith(pathToFileURL(join(ROOT, "dist")).href))
    .map((url) => fileURLToPath(url));
  temp.remove();
  const bundled = new Set<string>();
  for (const file of distFiles) {
    for (const [, source] of readFileSync(file, "utf8").matchAll(
      /^\/\/ ((?:src|node_modules)\/\S+)$/gm,
    )) {
      bundled.add(source ?? "");
    }
  }
  const packageOf = (source: string) =>
    /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[0] ?? source;
  return {
    ...result,
    files: distFiles.map((file) => relative(ROOT, file)),
    bundled: [...bundled].sort(),
    sources: [...new Set([...bundled].map(packageOf))].sort(),
  };
}
