/**
 * What a running `petstore serve` says, read by the tests that check it: the metrics
 * listener's URL from its `metrics on` line, a log line (the server flushes its log at least
 * every half second), and one sample of a metrics exposition.
 */
import { eventually } from "../../support/eventually.js";
import type { RunningServer } from "./servers.js";

/** The metrics listener's URL, once the server has printed its `metrics on URL` line. */
export async function metricsUrlOf(server: RunningServer): Promise<string> {
  const url = () => /^metrics on (http:\/\/\S+)$/m.exec(server.stdout())?.[1];
  await eventually("the server's `metrics on URL` line", () => url() !== undefined).catch(
    (error: unknown) => {
      throw new Error(`${String(error)}; stdout:\n${server.stdout()}`);
    },
  );
  return url() ?? "";
}

/** Waits for the first log line `pattern` matches, and returns it. */
export async function logLine(server: RunningServer, pattern: RegExp): Promise<string> {
  const find = () =>
    server
      .stderr()
      .split("\n")
      .find((candidate) => pattern.test(candidate));
  await eventually(`a log line ${String(pattern)}`, () => find() !== undefined);
  return find() ?? "";
}

/** The value of one series (`name{labels}`) in a Prometheus exposition, if it is there. */
export function sampleOf(text: string, series: string): number | undefined {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
