/** Fakes for in-process runs of the CLI: captured streams, a MockAgent, a recorded clock. */
import { Readable, Writable } from "node:stream";
import { MockAgent, type Dispatcher } from "undici";
import type { Deps } from "../../src/program/deps.js";
import type { InterruptSource } from "../../src/program/interrupts.js";
import { run } from "../../src/run.js";
import { readFileFrom } from "../support/files.js";

export const ORIGIN = "http://petstore.test";
export const BASE_URL = `${ORIGIN}/v1`;
export const KEY = "test-key-8d2e";

/** The environment of a correctly configured production run. */
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
  agent?: MockAgent;
  /** A dispatcher in front of the agent (e.g. one that holds requests); wins over `agent`. */
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
   * Use the real dispatcher the CLI builds (real sockets, proxy variables from `env`)
   * instead of a MockAgent; for tests against local servers and proxies.
   */
  realNetwork?: boolean;
}

/** A MockAgent that refuses real connections and records calls. */
export function mockAgent(): MockAgent {
  const agent = new MockAgent({ enableCallHistory: true });
  agent.disableNetConnect();
  return agent;
}

/**
 * Runs the CLI in-process on fakes and returns what it printed and its exit code. Every
 * interceptor registered on the agent must have been used: an unused HTTP stub is a test
 * bug (as with gh's httpmock registry), so the run throws.
 */
export async function runFake(
  argv: readonly string[],
  options: FakeOptions = {},
): Promise<FakeRun> {
  const stdout = captureStream();
  const stderr = captureStream();
  const sleeps: number[] = [];
  let uuids = 0;
  const deps: Deps = {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdoutIsTTY: options.isTTY ?? false,
    stderrIsTTY: options.stderrIsTTY ?? false,
    stdin:
      typeof options.stdin === "string"
        ? Readable.from([Buffer.from(options.stdin)])
        : options.stdin,
    env: options.env ?? CONFIGURED_ENV,
    readFile: readFileFrom(options.files),
    dispatcher:
      options.realNetwork === true
        ? undefined
        : (options.dispatcher ?? options.agent ?? mockAgent()),
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    newIdempotencyKey: () => fakeKey(++uuids),
    now: () => options.now ?? Date.parse("2025-06-01T12:00:00Z"),
    interrupts: options.interrupts,
  };
  const code = await run(argv, deps);
  options.agent?.assertNoPendingInterceptors();
  return { code, stdout: stdout.text(), stderr: stderr.text(), sleeps };
}

/** The calls the agent received, as "METHOD path". */
export function callsOf(agent: MockAgent): string[] {
  return (agent.getCallHistory()?.calls() ?? []).map((call) => `${call.method} ${call.path}`);
}

/** JSON response options for MockAgent replies. */
export const json = { headers: { "content-type": "application/json" } };

/** An error as a socket raises it (`ECONNRESET`, ...), for MockAgent's replyWithError. */
export function socketError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}
