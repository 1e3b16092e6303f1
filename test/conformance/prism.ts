/**
 * Runs Stoplight Prism (`prism mock` or `prism proxy`) on openapi/inventory.json, on a port
 * the system picks on 127.0.0.1, and stops it again: by `stop()`, `stopAllPrisms()` in an
 * afterAll, or at the latest when the test process exits.
 *
 * Prism routes on the document's paths alone and ignores its relative `servers` entry
 * (`/v1`), so it serves `/inventory`, not `/v1/inventory`: the URL of a running Prism stands
 * for a base URL that already includes `/v1`. `prism proxy` appends the request path to the
 * upstream URL's path, so its upstream is the server's base URL, `http://HOST:PORT/v1`.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import type { Readable } from "node:stream";

const ROOT = join(import.meta.dirname, "..", "..");
/** The committed OpenAPI document, the one Prism is given. */
export const DOCUMENT = join(ROOT, "openapi", "inventory.json");
const PRISM = join(ROOT, "node_modules", ".bin", "prism");

type Child = ChildProcessByStdio<null, Readable, Readable>;

export interface PrismProcess {
  /** `http://127.0.0.1:PORT`, no trailing slash; it stands for the base URL (see above). */
  url: string;
  /** Everything Prism has logged so far. */
  output(): string;
  /** Prism's log lines that report a request or response violation. */
  violationLines(): string[];
  /** Stops Prism and waits for it to exit. */
  stop(): Promise<void>;
}

/** Each running Prism with its stop function. */
const running = new Map<Child, () => Promise<void>>();
// A crashed or interrupted test run must not leave Prism behind.
process.once("exit", () => {
  for (const child of running.keys()) child.kill("SIGKILL");
});

const LISTENING = /Prism is listening on (http:\/\/127\.0\.0\.1:\d+)/;
const VIOLATION = /Violation: |errors#VIOLATIONS/;

/** Starts `prism <args> --host 127.0.0.1 --port 0` and waits until it listens. */
export async function startPrism(args: readonly string[]): Promise<PrismProcess> {
  const child = spawn(process.execPath, [PRISM, ...args, "--host", "127.0.0.1", "--port", "0"], {
    env: { PATH: process.env.PATH, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const append = (chunk: Buffer) => (output += chunk.toString());
  child.stdout.on("data", append);
  child.stderr.on("data", append);
  const exited = once(child, "exit").then(() => {
    running.delete(child);
  });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  running.set(child, stop);

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`prism ${args.join(" ")} did not start in 20 s:\n${output}`));
    }, 20_000);
    const check = () => {
      const match = LISTENING.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on("data", check);
    child.stderr.on("data", check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`prism ${args.join(" ")} exited before listening:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });

  return {
    url,
    output: () => output,
    violationLines: () => output.split("\n").filter((line) => VIOLATION.test(line)),
    stop,
  };
}

/** Stops every Prism this process started that is still running. */
export async function stopAllPrisms(): Promise<void> {
  await Promise.all([...running.values()].map((stop) => stop()));
}
