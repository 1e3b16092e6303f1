/**
 * Where the server's log goes: its stderr, one JSON object a line (stdout carries only the
 * `listening on` line). When stderr is a real file descriptor, lines are batched up to 4 KiB
 * and written asynchronously, and at least every half second: one write per request was the
 * largest cost of a GET. Under systemd each line carries its syslog priority (log-journal.ts).
 */
import { destination, type DestinationStream } from "pino";
import { isJournalStream, withSyslogPriority } from "./log-journal.js";

/** Anything text is written to: process.stdout and process.stderr, or a test's buffer. */
export type TextOut = DestinationStream;

export interface LogDestination {
  stream: DestinationStream;
  /** Writes what is batched now: lines someone waits for (start-up's, a signal's). */
  flush(): void;
  /** Writes what is left, before the process exits. */
  close(): void;
}

/** The log's destination on `stderr`; JOURNAL_STREAM from `env` decides the priorities. */
export function logDestination(
  stderr: TextOut,
  env: Readonly<Record<string, string | undefined>>,
): LogDestination {
  const fd = (stderr as { fd?: unknown }).fd;
  if (typeof fd !== "number") {
    return { stream: stderr, flush: () => undefined, close: () => undefined };
  }
  const batched = destination({ dest: fd, sync: false, minLength: 4096 });
  const timer = setInterval(() => {
    batched.flush();
  }, 500).unref();
  return {
    stream: isJournalStream(env.JOURNAL_STREAM, fd) ? withSyslogPriority(batched) : batched,
    flush() {
      batched.flushSync();
    },
    close() {
      clearInterval(timer);
      batched.flushSync();
    },
  };
}
