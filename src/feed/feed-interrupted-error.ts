/** A follower stopped by SIGINT or SIGTERM: exit 130 or 143, after the page being printed. */
import { CliError } from "../errors.js";
import { exitCodeForSignal, type InterruptSignal } from "../exit-codes.js";
import { countOf } from "../text/plural.js";
import type { WalkEnd } from "./walk.js";

export class FeedInterruptedError extends CliError {
  readonly signal: InterruptSignal;

  /** `end` is where the walk stopped; `cursorFile` the file that holds its cursor, if any. */
  constructor(signal: InterruptSignal, end: WalkEnd, cursorFile: string | undefined) {
    const seq = end.after.toString();
    super(
      `interrupted by ${signal}: stopped following after ${countOf(end.printed, "change")} (up to seq ${seq})`,
      exitCodeForSignal(signal),
      cursorFile === undefined
        ? `--after ${seq} goes on from there`
        : `the cursor file ${cursorFile} holds seq ${seq}: the same command goes on from there`,
    );
    this.signal = signal;
  }
}
