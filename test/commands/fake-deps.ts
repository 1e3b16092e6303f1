/**
 * Fakes for in-process runs of the CLI: captured streams, a recorded clock, and HTTP stubs on a
 * real local server (test/support/http-stubs.ts), reached through the transport a user without
 * a proxy variable takes (node:http), never an injected dispatcher unless a test asks for one.
 */
import { Readable, Writable } from "node:stream";
import type { Dispatcher } from "undici";
import type { Deps } from "../../src/program/deps.js";
import type { InterruptSource } from "../../src/program/interrupts.js";
import { run } from "../../src/run.js";
import { readFileFrom } from "../support/files.js";
import { answerFrom, HttpStubs, STUB_ORIGIN } from "../support/http-stubs.js";

export { closedPort, HttpStubs } from "../support/http-stubs.js";

/** The origin of this test file's stub server (`http://127.0.0.1:<port>`). */
export const ORIGIN = STUB_ORIGIN;
export const BASE_URL = `${ORIGIN}/v1`;
export const KEY = "test-key-8d2e";

/** The environment of a correctly configured production run: the stub server, a key. */
export const CONFIGURED_ENV = { PETSTORE_BASE_URL: BASE_URL, PETSTORE_API_KEY: KEY };

/** The n-th (1-based) UUID a fake run hands out as an Idempotency-Key. */
export function fakeKey(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
}

/** A writable stream that keeps what was written. */
export function captureStream(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  return { stream, text: () => chunks.join("") };
}

export interface FakeRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Delays the retry loop asked to sleep, in order. */
  sleeps: number[];
}

export interface FakeOptions {
  env?: Record<string, string | undefined>;
  isTTY?: boolean;
  /** The terminal's width, with isTTY (none: tables as wide as they are). */
  columns?: number;
  /**
   * What the stub server answers during the run; every stub must be used and every request
   * must match one (the run throws otherwise). None: any request fails the test.
   */
  stubs?: HttpStubs;
  /**
   * An undici dispatcher to send through (the proxy transport, client/dispatcher.ts), in place
   * of the connections the run opens itself: only for the tests of that path.
   */
  dispatcher?: Dispatcher;
  files?: Record<string, string>;
  now?: number;
  /**
   * What stdin holds (read by `inventory apply -`), or the stream itself (one that never ends,
   * say); no stdin when absent.
   */
  stdin?: string | Readable;
  /** Whether stderr is a terminal (progress bars). */
  stderrIsTTY?: boolean;
  /** SIGINT/SIGTERM as the run sees them (an Interrupts the test delivers signals to). */
  interrupts?: InterruptSource;
  /**
   * Runs at each pause the run asks for (which returns at once, recorded in `sleeps`), before
   * it ends: the test acts between two attempts (a server goes away, or comes back).
   */
  onSleep?: (ms: number, sleeps: readonly number[]) => void | Promise<void>;
}

/**
 * Runs the CLI in-process on fakes and returns what it printed and its exit code. Its requests
 * go to the stub server through node:http; every stub must have been used and every request
 * must have matched one (an unused HTTP stub is a test bug, as with gh's httpmock registry), so
 * the run throws otherwise.
 */
export async function runFake(
  argv: readonly string[],
  options: FakeOptions = {},
): Promise<FakeRun> {
  const stdout = captureStream();
  const stderr = captureStream();
  const sleeps: number[] = [];
  const stubs = options.stubs ?? new HttpStubs();
  let uuids = 0;
  let over = false;
  const deps: Deps = {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdoutIsTTY: options.isTTY ?? false,
    stdoutColumns: options.columns,
    stderrIsTTY: options.stderrIsTTY ?? false,
    stdin:
      typeof options.stdin === "string"
        ? Readable.from([Buffer.from(options.stdin)])
        : options.stdin,
    env: options.env ?? CONFIGURED_ENV,
    readFile: readFileFrom(options.files),
    dispatcher: options.dispatcher,
    sleep: async (ms) => {
      // After the run, a request an interrupt left out (dropped by the run's close) would be
      // retried in the background and reach the stubs of a later test; the real process has
      // exited by then (main.ts), so here its pause never ends.
      if (over) return new Promise<void>(() => undefined);
      sleeps.push(ms);
      await options.onSleep?.(ms, sleeps);
    },
    random: () => 0.5,
    newIdempotencyKey: () => fakeKey(++uuids),
    now: () => options.now ?? Date.parse("2025-06-01T12:00:00Z"),
    interrupts: options.interrupts,
  };
  answerFrom(stubs);
  let code: number;
  try {
    code = await run(argv, deps);
  } finally {
    over = true;
    answerFrom(undefined);
  }
  stubs.verify();
  return { code, stdout: stdout.text(), stderr: stderr.text(), sleeps };
}

/** The options of a JSON answer: `stubs.on(...).reply(200, body, json)`. */
export const json = { headers: { "content-type": "application/json" } };
