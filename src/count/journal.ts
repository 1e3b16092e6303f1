/**
 * A counting session's journal: one JSON object a line, in
 * `$XDG_STATE_HOME/petstore/counts/<session id>.jsonl` (`~/.local/state` when unset). Each
 * entry is written and flushed to disk (fsync) before the line is echoed, so a crash, a closed
 * terminal or Ctrl-C loses nothing that was shown. A last line cut short by a crash was never
 * shown, and is left out when the journal is read back.
 */
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { isPetStatus, type JournalEntry, type PetRead } from "./session.js";
import { SessionLock } from "./session-lock.js";

/** Where sessions live: `$XDG_STATE_HOME/petstore/counts`, else `~/.local/state/petstore/counts`. */
export function sessionsDirectory(env: Readonly<Record<string, string | undefined>>): string {
  const state = env.XDG_STATE_HOME;
  // The XDG rule: a relative path in the variable is invalid and ignored.
  const base =
    state !== undefined && state.startsWith("/")
      ? state
      : join(env.HOME ?? homedir(), ".local", "state");
  return join(base, "petstore", "counts");
}

/** A journal that cannot be read back: its file and line, and what is wrong there. */
export class JournalError extends Error {}

/** The entry as its line in the file (bigints as strings). */
export function encodeEntry(entry: JournalEntry): string {
  return `${JSON.stringify(entry, (_key, value: unknown) =>
    typeof value === "bigint" ? value.toString() : value,
  )}\n`;
}

type Fields = Record<string, unknown>;

function text(fields: Fields, key: string): string {
  const value = fields[key];
  if (typeof value !== "string") throw new Error(`"${key}" is not a string`);
  return value;
}

function whole(fields: Fields, key: string): number {
  const value = fields[key];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new Error(`"${key}" is not a whole number`);
  }
  return value;
}

function id(fields: Fields, key: string): bigint {
  const value = text(fields, key);
  if (!/^(0|[1-9][0-9]*)$/.test(value)) throw new Error(`"${key}" is not a whole number`);
  return BigInt(value);
}

function status(fields: Fields, key: string) {
  const value = fields[key];
  if (!isPetStatus(value)) throw new Error(`"${key}" is not a pet status`);
  return value;
}

function read(fields: Fields): PetRead | undefined {
  const value = fields.read;
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null) throw new Error('"read" is not an object');
  const readFields = value as Fields;
  return {
    status: status(readFields, "status"),
    book: whole(readFields, "book"),
    asOf: id(readFields, "asOf"),
  };
}

/** One line of a journal, checked field by field. */
export function decodeEntry(line: string): JournalEntry {
  const parsed: unknown = JSON.parse(line);
  if (typeof parsed !== "object" || parsed === null) throw new Error("not a JSON object");
  const fields = parsed as Fields;
  switch (fields.type) {
    case "session":
      return {
        type: "session",
        id: text(fields, "id"),
        server: text(fields, "server"),
        startedAt: text(fields, "startedAt"),
        full: fields.full === true,
        status: fields.status === null ? null : status(fields, "status"),
      };
    case "scope": {
      if (!Array.isArray(fields.pets)) throw new Error('"pets" is not a list');
      return {
        type: "scope",
        asOf: id(fields, "asOf"),
        pets: (fields.pets as unknown[]).map((pet) => {
          const petFields = pet as Fields;
          return {
            petId: id(petFields, "petId"),
            status: status(petFields, "status"),
            book: whole(petFields, "book"),
          };
        }),
      };
    }
    case "add":
      return {
        type: "add",
        petId: id(fields, "petId"),
        units: whole(fields, "units"),
        read: read(fields),
      };
    case "set":
      return {
        type: "set",
        petId: id(fields, "petId"),
        count: whole(fields, "count"),
        read: read(fields),
      };
    case "undo":
      return { type: "undo" };
    case "posted":
      return { type: "posted", at: text(fields, "at") };
    case "seen":
      return {
        type: "seen",
        seq: id(fields, "seq"),
        petId: id(fields, "petId"),
        at: text(fields, "at"),
      };
    default:
      throw new Error("not an entry of a count journal");
  }
}

/** Reads a journal back; a last line cut short by a crash is left out. */
export function readJournal(path: string): JournalEntry[] {
  const lines = readFileSync(path, "utf8").split("\n");
  // The last element is "" after the final newline, or a line the process died writing.
  lines.pop();
  const entries: JournalEntry[] = [];
  lines.forEach((line, index) => {
    try {
      entries.push(decodeEntry(line));
    } catch (error) {
      throw new JournalError(
        `${path}:${index + 1}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  });
  return entries;
}

/** An open journal, appended to one flushed entry at a time. */
export class Journal {
  readonly path: string;
  #fd: number | undefined;
  /** The session's lock (session-lock.ts), given back when the journal is closed. */
  readonly #lock: SessionLock;

  private constructor(path: string, fd: number, lock: SessionLock) {
    this.path = path;
    this.#fd = fd;
    this.#lock = lock;
  }

  /**
   * Creates the journal of a new session (never over an existing one). Opened to append, as a
   * resumed one is: each entry goes to the end of the file as it is then, so a second process
   * given the same session (`--resume` in another window) adds its lines after this one's
   * instead of writing over them.
   */
  static create(directory: string, sessionId: string, now: number): Journal {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const path = join(directory, `${sessionId}.jsonl`);
    // Locked before the journal exists: a bare --resume elsewhere finds it locked.
    const lock = SessionLock.take(path, sessionId, now);
    try {
      return new Journal(path, openSync(path, "ax", 0o600), lock);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /**
   * Opens an existing journal, whose session's `lock` this process holds (taken before the
   * journal was read back), to append to it, without a last line cut short by a crash.
   */
  static reopen(path: string, lock: SessionLock): Journal {
    const content = readFileSync(path);
    const end = content.lastIndexOf(0x0a) + 1;
    if (end < content.length) truncateSync(path, end);
    return new Journal(path, openSync(path, "a"), lock);
  }

  /** Writes the entry and flushes it to disk: once this returns, the entry survives a crash. */
  append(entry: JournalEntry): void {
    if (this.#fd === undefined) throw new Error("the journal is closed");
    const bytes = Buffer.from(encodeEntry(entry));
    let written = 0;
    while (written < bytes.length) written += writeSync(this.#fd, bytes, written);
    fsyncSync(this.#fd);
  }

  /** Closes the file and gives the session's lock back. */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
    this.#lock.release();
  }
}

/** The journals in `directory`, oldest first (session ids are time-ordered). */
export function journalPaths(directory: string): string[] {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return names
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => join(directory, name));
}
