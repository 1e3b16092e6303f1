/**
 * A counting session is used by one process at a time: `<session id>.lock` beside its journal,
 * made exclusively (O_EXCL) and holding the process that has the session open. A second
 * process (`--resume` in another window) is refused: two at once would each `undo` the other's
 * last line, and each post what the other counted. A lock left by a process that is gone (a
 * SIGKILL, a crash) is taken over when that process was on this machine and runs no more;
 * one from another machine (a shared home) is never guessed gone: the refusal says to delete it.
 */
import { openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import { hostname } from "node:os";
import { localTime } from "../text/local-time.js";
import { printable } from "../text/printable.js";

/** The process a lock names. */
interface Holder {
  pid: number;
  host: string;
  since: string;
}

/** The session is open in another process; the message and hint say which and what to do. */
export class SessionBusyError extends Error {
  readonly hint: string;
  constructor(message: string, hint: string) {
    super(message);
    this.name = "SessionBusyError";
    this.hint = hint;
  }
}

/** The lock file of the journal at `journalPath` (`…/<id>.jsonl` → `…/<id>.lock`). */
function lockPathOf(journalPath: string): string {
  return journalPath.replace(/\.jsonl$/, ".lock");
}

/** Whether process `pid` runs on this machine (EPERM: it does, as another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(path: string): Holder | undefined {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Partial<Holder>;
    return Number.isSafeInteger(value.pid) &&
      typeof value.host === "string" &&
      typeof value.since === "string"
      ? (value as Holder)
      : undefined;
  } catch {
    return undefined;
  }
}

export class SessionLock {
  readonly #path: string;
  #held = true;

  private constructor(path: string) {
    this.#path = path;
  }

  /**
   * Takes the lock of session `id`, whose journal is (or will be) `journalPath`; `now` is the
   * time it is taken. SessionBusyError when another process holds it.
   */
  static take(journalPath: string, id: string, now: number): SessionLock {
    const path = lockPathOf(journalPath);
    const holder: Holder = {
      pid: process.pid,
      host: hostname(),
      since: new Date(now).toISOString(),
    };
    for (let attempt = 0; ; attempt++) {
      let fd: number;
      try {
        fd = openSync(path, "wx", 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        const other = readHolder(path);
        // Gone for sure: a process of this machine that runs no more, or that had this one's
        // pid (a container's runs are all process 1; this process takes a session once).
        // Taken over once; a second EEXIST is another process that took it over first.
        if (
          attempt === 0 &&
          other?.host === holder.host &&
          (other.pid === process.pid || !isRunning(other.pid))
        ) {
          rmSync(path, { force: true });
          continue;
        }
        throw busy(id, path, other);
      }
      try {
        writeSync(fd, `${JSON.stringify(holder)}\n`);
      } finally {
        closeSync(fd);
      }
      return new SessionLock(path);
    }
  }

  /** Gives the lock back (once; later calls do nothing). */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    rmSync(this.#path, { force: true });
  }
}

function busy(id: string, path: string, other: Holder | undefined): SessionBusyError {
  const where =
    other === undefined
      ? `a lock file that does not say which process has it (${path})`
      : `process ${other.pid} on ${other.host === hostname() ? "this machine" : printable(other.host)}, since ${localTime(other.since)}`;
  return new SessionBusyError(
    `count session ${id} is open in another petstore (${where}): two at once would undo each other's lines; nothing was read or posted`,
    `finish it there (done, or Ctrl-D); if that process is gone (its machine restarted), delete ${path} and run this again`,
  );
}
