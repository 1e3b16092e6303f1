/** Wires the real process into run() and sets the exit code. */
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { exitCodeForSignal, INTERRUPT_SIGNALS } from "./errors.js";
import { Interrupts } from "./program/interrupts.js";
import { run } from "./program/run.js";
import { timeOrderedUuid } from "./client/idempotency-key.js";

// A reader that stops early (`petstore inventory list | head -1`) is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

// SIGINT/SIGTERM go to the command that claimed them (`inventory apply` stops cleanly and
// reports). Otherwise the process ends at once with 130/143, as with Node's default handling,
// unless another handler took the signal over (`serve` closes gracefully by itself).
const interrupts = new Interrupts();
for (const signal of INTERRUPT_SIGNALS) {
  process.on(signal, () => {
    const delivery = interrupts.deliver(signal);
    if (delivery === "claimed") return;
    if (delivery === "unclaimed" && process.listenerCount(signal) > 1) return;
    process.exit(exitCodeForSignal(signal));
  });
}

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
  newIdempotencyKey: () => timeOrderedUuid(),
  now: Date.now,
  interrupts,
});
