/** Wires the real process into run() and sets the exit code. */
import { writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { OutputError } from "./errors.js";
import { exitCodeForSignal, INTERRUPT_SIGNALS } from "./exit-codes.js";
import { formatExit } from "./output/messages.js";
import { exitFor } from "./program/exit.js";
import { Interrupts } from "./program/interrupts.js";
import { run } from "./run.js";
import { timeOrderedUuid } from "./client/idempotency-key.js";

// A reader that stops early (`petstore inventory list | head -1`) is not an error. Any other
// failure to write stdout (a full disk) ends the run at once, whatever the command was doing,
// with exit 2 and one `error:` line: before a cursor file is saved for what was not written.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  const exit = exitFor(new OutputError(error), { verbose: false });
  process.stderr.write(formatExit(exit));
  process.exit(exit.code);
});

// Messages that cannot be written (stderr on a full disk) cannot be told of either: the exit
// code still says how the run ended, which is what a script branches on.
process.stderr.on("error", () => undefined);

// SIGINT/SIGTERM go to the command that claimed them (`inventory apply` stops cleanly and
// reports). Otherwise the process ends at once with 130/143, as with Node's default handling,
// unless another handler took the signal over (`serve` closes gracefully by itself).
const interrupts = new Interrupts();
for (const signal of INTERRUPT_SIGNALS) {
  process.on(signal, () => {
    // Ctrl-C at a terminal echoes `^C` where the cursor is: what is said next starts a line.
    if (signal === "SIGINT" && process.stderr.isTTY) process.stderr.write("\n");
    const delivery = interrupts.deliver(signal);
    if (delivery === "claimed") return;
    if (delivery === "unclaimed" && process.listenerCount(signal) > 1) return;
    if (delivery === "again") {
      // The run asked to be interrupted again to stop at once: it has no report to print, so
      // it says what that leaves (written at once: the process ends on the next line).
      try {
        writeSync(
          2,
          `stopped at once by a second ${signal}, without the report: a request in flight may have been applied; run the same command again to settle it\n`,
        );
      } catch {
        // stderr gone: the exit code says it.
      }
    }
    process.exit(exitCodeForSignal(signal));
  });
}

const exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdoutIsTTY: process.stdout.isTTY,
  stdoutColumns: process.stdout.columns,
  stderrIsTTY: process.stderr.isTTY,
  stdin: process.stdin,
  stdinIsTTY: process.stdin.isTTY,
  env: process.env,
  readFile: (path) => readFile(path, "utf8"),
  sleep: (ms) => sleep(ms),
  random: Math.random,
  newIdempotencyKey: () => timeOrderedUuid(),
  now: Date.now,
  interrupts,
});
process.exitCode = exitCode;
// A command that took an interrupt has printed its report: what it left unfinished (stdin
// still open, a request it no longer waits for) must not keep the process alive. It ends once
// what was written has gone out.
if (interrupts.interrupted) {
  let unflushed = 2;
  const flushed = () => {
    unflushed -= 1;
    if (unflushed === 0) process.exit(exitCode);
  };
  process.stdout.write("", flushed);
  process.stderr.write("", flushed);
}
