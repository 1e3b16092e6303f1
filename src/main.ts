/** Wires the real process into run() and sets the exit code. */
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { run } from "./program/run.js";

// A reader that stops early (`petstore inventory list | head -1`) is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdoutIsTTY: process.stdout.isTTY,
  stderrIsTTY: process.stderr.isTTY,
  stdin: process.stdin,
  env: process.env,
  readFile: (path) => readFile(path, "utf8"),
  sleep: (ms) => sleep(ms),
  random: Math.random,
  now: Date.now,
});
