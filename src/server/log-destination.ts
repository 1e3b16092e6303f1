/**
 * Where the server's log goes: its stderr, one JSON object a line (stdout carries only the
 * `listening on` line). When stderr is a real file descriptor, lines are batched up to 4 KiB
 * and written asynchronously, and at least every half second: one write per request was the
 * largest cost of a GET. Under systemd each line carries its syslog priority (log-journal.ts).
 */
import type { DestinationStream } from "pino";
import sonicBoom from "sonic-boom";
import { isJournalStream, withSyslogPriority } from "./log-journal.js";

// CommonJS: Node's ES module loader sees only its default export, the class, which also holds
// itself as `SonicBoom`, the name its types give it.
const { SonicBoom } = sonicBoom;

/** Anything text is written to: process.stdout and process.stderr, or a test's buffer. */
export type TextOut = DestinationStream;

export interface LogDestination {
  stream: DestinationStream;
  /** Writes what is batched now: lines someone waits for (start-up's, a signal's). */
  flush(): void;
  /** Writes what is left, before the process exits. */
  close(): void;
  /**
   * Calls `report` with how many lines were dropped (past MAX_HELD while the log could not be
   * written) once the log takes lines again, so that its reader learns of the gap.
   */
  onDropped(report: (lines: number) => void): void;
}

/** The log's destination on `stderr`; JOURNAL_STREAM from `env` decides the priorities. */
export function logDestination(
  stderr: TextOut,
  env: Readonly<Record<string, string | undefined>>,
  maxHeld = MAX_HELD,
): LogDestination {
  const fd = (stderr as { fd?: unknown }).fd;
  if (typeof fd !== "number") {
    return {
      stream: stderr,
      flush: () => undefined,
      close: () => undefined,
      onDropped: () => undefined,
    };
  }
  const batched = new SonicBoom({ fd, sync: false, minLength: 4096, maxLength: maxHeld });
  // A log that cannot be written (a full disk under the log file, a pipe whose reader is
  // gone) must not stop the server: it serves on, the lines are held (up to MAX_HELD) and
  // written once the log can take them. Left unheard, the error would end the process.
  batched.on("error", () => undefined);
  // Past MAX_HELD a line is dropped: counted, and the count reported once a write succeeds.
  let dropped = 0;
  let report: ((lines: number) => void) | undefined;
  batched.on("drop", (data: unknown) => {
    dropped += Math.max(1, String(data).split("\n").length - 1);
  });
  batched.on("write", () => {
    if (dropped === 0 || report === undefined) return;
    const lines = dropped;
    report(lines);
    // The report is a line too: when the log could not take it either, the count stays whole
    // (with that line in it) for the next report; else the lines reported are off the count.
    if (dropped === lines) dropped = 0;
  });
  const timer = setInterval(() => {
    batched.flush();
  }, 500).unref();
  /** Writes what is held now, unless the log cannot take it (sonic-boom 5 throws then). */
  const flushNow = () => {
    try {
      batched.flushSync();
    } catch {
      // The lines stay held; see above.
    }
  };
  return {
    stream: isJournalStream(env.JOURNAL_STREAM, fd) ? withSyslogPriority(batched) : batched,
    flush: flushNow,
    close() {
      clearInterval(timer);
      flushNow();
    },
    onDropped(listener) {
      report = listener;
    },
  };
}

/**
 * How much log a server holds while its log cannot be written, at most; past it, lines are
 * dropped (sonic-boom's maxLength) rather than the server's memory growing with every request.
 */
const MAX_HELD = 16 * 1024 * 1024;
