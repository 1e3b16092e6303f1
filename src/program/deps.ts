/** Everything a CLI run takes from the outside world, injected so tests can fake it. */
import type { Dispatcher } from "undici";
import type { Env } from "../client/target.js";
import type { InterruptSource } from "./interrupts.js";

export interface Deps {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /**
   * Whether stdout is a terminal (tables and totals) or a pipe or file (plain lines).
   * Node leaves `isTTY` undefined, not false, on a pipe, whatever its types say.
   */
  stdoutIsTTY: boolean | undefined;
  /** stdout's width in columns when it is a terminal (tables fit it); absent: unknown. */
  stdoutColumns?: number | undefined;
  /** Whether stderr is a terminal (progress bars); absent or undefined means it is not. */
  stderrIsTTY?: boolean | undefined;
  /** Whether stdin is a terminal (a person or a scanner types): absent or undefined, it is not. */
  stdinIsTTY?: boolean | undefined;
  /** Where `-` input is read from (`inventory apply -`); absent means no stdin (empty input). */
  stdin?: NodeJS.ReadableStream | undefined;
  env: Env;
  /** Reads a text file (PETSTORE_API_KEY_FILE, the counts file of `inventory apply`). */
  readFile: (path: string) => Promise<string>;
  /** undici dispatcher to send through; when absent, the run opens its own (connections.ts). */
  dispatcher?: Dispatcher | undefined;
  /** Waits between retries. */
  sleep: (ms: number) => Promise<void>;
  /** Jitter source, in [0, 1). */
  random: () => number;
  /** A new Idempotency-Key for one intended change (a time-ordered UUID: idempotency-key.ts). */
  newIdempotencyKey: () => string;
  /** Clock in milliseconds since the epoch (Retry-After dates, trace timings). */
  now: () => number;
  /** SIGINT/SIGTERM, for commands that stop cleanly on one; absent means none ever comes. */
  interrupts?: InterruptSource | undefined;
}
