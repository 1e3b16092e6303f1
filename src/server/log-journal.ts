/**
 * The server's log under systemd: journald reads a `<N>` prefix at the start of a line as its
 * syslog priority (sd-daemon(3), SyslogLevelPrefix=yes, the default) and strips it, so
 * `journalctl -p err` finds the errors. Only when the log's stream is the journal's: systemd
 * names that stream in JOURNAL_STREAM as `device:inode` (sd_journal_stream_fd(3)).
 */
import { fstatSync } from "node:fs";
import type { DestinationStream } from "pino";

/**
 * Whether `fd` is the journal's stream: JOURNAL_STREAM names its device and inode. A child
 * started by a service inherits the variable but not always the stream (a redirect to a file).
 */
export function isJournalStream(journalStream: string | undefined, fd: number): boolean {
  const match = /^(\d+):(\d+)$/.exec(journalStream ?? "");
  if (match?.[1] === undefined || match[2] === undefined) return false;
  try {
    const stat = fstatSync(fd, { bigint: true });
    return stat.dev === BigInt(match[1]) && stat.ino === BigInt(match[2]);
  } catch {
    return false;
  }
}

/** A pino level's syslog priority: fatal 2 (crit), error 3, warn 4, info 6, debug and trace 7. */
export function syslogPriority(level: number): number {
  if (level >= 60) return 2;
  if (level >= 50) return 3;
  if (level >= 40) return 4;
  if (level >= 30) return 6;
  return 7;
}

/** pino writes a line per call, starting with its level: `{"level":50,…}`. */
const LEVEL = /^\{"level":(\d+)/;

/** Writes each line to `target` with its priority in front: `<3>{"level":50,…}`. */
export function withSyslogPriority(target: DestinationStream): DestinationStream {
  return {
    write(line: string) {
      const level = LEVEL.exec(line)?.[1];
      target.write(`<${syslogPriority(level === undefined ? 30 : Number(level))}>${line}`);
    },
  };
}
