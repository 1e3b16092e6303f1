import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { localTime } from "../../src/text/local-time.js";
import {
  encodeEntry,
  Journal,
  JournalError,
  journalPaths,
  readJournal,
  sessionsDirectory,
} from "../../src/count/journal.js";
import { CountSession, type JournalEntry, type SessionHeader } from "../../src/count/session.js";
import { SessionBusyError, SessionLock } from "../../src/count/session-lock.js";
import { tempDir } from "../support/temp-dir.js";

const NOW = Date.parse("2026-11-27T00:30:00.000Z");

const HEADER: SessionHeader = {
  type: "session",
  id: "20261127-003000-00ab",
  server: "http://127.0.0.1:4010/v1",
  startedAt: "2026-11-27T00:30:00.000Z",
  full: false,
  status: null,
};

const read = (book: number, asOf: bigint) => ({ status: "available" as const, book, asOf });

describe("CountSession", () => {
  it("counts a pet from its first line's read: adds, sets, and undoes line by line", () => {
    const session = new CountSession(HEADER);
    session.apply({ type: "add", petId: 42n, units: 1, read: read(5, 10n) });
    session.apply({ type: "add", petId: 42n, units: 3 });
    expect(session.pet(42n)).toEqual({ petId: 42n, read: read(5, 10n), counted: 4 });
    session.apply({ type: "set", petId: 42n, count: 2 });
    expect(session.pet(42n)?.counted).toBe(2);
    session.apply({ type: "undo" });
    expect(session.pet(42n)?.counted).toBe(4);
    session.apply({ type: "undo" });
    session.apply({ type: "undo" });
    // Its only line taken back, the pet is not counted (its next line reads it again).
    expect(session.pet(42n)).toBeUndefined();
    session.apply({ type: "undo" });
    expect(session.counted()).toEqual([]);
  });

  it("keeps the read of a pet's first line: a later read is not taken (PRODUCT.md: read at its first line)", () => {
    const session = new CountSession(HEADER);
    session.apply({ type: "add", petId: 7n, units: 1, read: read(3, 10n) });
    session.apply({ type: "add", petId: 7n, units: 1, read: read(9, 99n) });
    expect(session.pet(7n)?.read).toEqual(read(3, 10n));
  });

  it("totals what the review lists, and a full stocktake lists its scope's pets not counted as 0", () => {
    const session = new CountSession({ ...HEADER, full: true });
    session.apply({
      type: "scope",
      asOf: 8n,
      pets: [
        { petId: 1n, status: "available", book: 2 },
        { petId: 2n, status: "available", book: 5 },
        { petId: 3n, status: "available", book: 0 },
      ],
    });
    session.apply({ type: "set", petId: 2n, count: 4, read: read(5, 12n) });
    session.apply({ type: "add", petId: 9n, units: 1, read: read(1, 13n) });
    expect(
      session
        .review()
        .map(({ pet, uncounted }) => [pet.petId, pet.counted, pet.read.asOf, uncounted]),
    ).toEqual([
      [1n, 0, 8n, true],
      [2n, 4, 12n, false],
      [3n, 0, 8n, true],
      [9n, 1, 13n, false],
    ]);
    expect(session.totals()).toEqual({ pets: 4, units: 5, netVariance: -3, petsOff: 2 });
  });
});

describe("the journal", () => {
  let directory: ReturnType<typeof tempDir> | undefined;
  afterEach(() => directory?.remove());

  it("lives under $XDG_STATE_HOME, else ~/.local/state; a relative XDG_STATE_HOME is ignored", () => {
    expect(sessionsDirectory({ XDG_STATE_HOME: "/var/x", HOME: "/home/a" })).toBe(
      "/var/x/petstore/counts",
    );
    expect(sessionsDirectory({ HOME: "/home/a" })).toBe("/home/a/.local/state/petstore/counts");
    expect(sessionsDirectory({ XDG_STATE_HOME: "rel", HOME: "/home/a" })).toBe(
      "/home/a/.local/state/petstore/counts",
    );
  });

  it("replays to the session that was shown, and a line cut short by a crash is left out", () => {
    directory = tempDir();
    const sessions = join(directory.dir, "counts");
    const journal = Journal.create(sessions, HEADER.id, NOW);
    const entries: JournalEntry[] = [
      HEADER,
      { type: "add", petId: 42n, units: 1, read: read(5, 9223372036854775807n) },
      { type: "set", petId: 42n, count: 7 },
      { type: "undo" },
      { type: "add", petId: 43n, units: 2, read: read(0, 11n) },
      { type: "seen", seq: 11n, petId: 7n, at: "2026-11-27T00:59:59.123Z" },
      { type: "seen", seq: 9223372036854775807n, petId: 42n, at: "2026-11-27T01:00:00.000Z" },
    ];
    for (const entry of entries) journal.append(entry);
    journal.close();
    expect((statSync(journal.path).mode & 0o777).toString(8)).toBe("600");
    // A crash in the middle of the next write: no newline, never echoed.
    appendFileSync(journal.path, '{"type":"add","petId":"4');
    const replayed = CountSession.replay(readJournal(journal.path));
    expect(replayed.counted().map((pet) => [pet.petId, pet.counted])).toEqual([
      [42n, 1],
      [43n, 2],
    ]);
    expect(replayed.pet(42n)?.read.asOf).toBe(9223372036854775807n);
    // The change at the highest seq read as of: the last noted.
    expect(replayed.seen).toEqual(entries[6]);
    // Reopened, the cut line is gone before the next entry goes on.
    const again = Journal.reopen(journal.path, SessionLock.take(journal.path, HEADER.id, NOW));
    again.append({ type: "posted", at: "2026-11-27T01:00:00.000Z" });
    again.close();
    expect(
      readFileSync(journal.path, "utf8").endsWith(
        encodeEntry({ type: "undo" }) +
          encodeEntry(entries[4] as JournalEntry) +
          encodeEntry(entries[5] as JournalEntry) +
          encodeEntry(entries[6] as JournalEntry) +
          encodeEntry({ type: "posted", at: "2026-11-27T01:00:00.000Z" }),
      ),
    ).toBe(true);
    expect(CountSession.replay(readJournal(journal.path)).posted).toBe(true);
    expect(journalPaths(sessions)).toEqual([journal.path]);
  });

  it("never makes a session over an existing one, and leaves no lock behind", () => {
    directory = tempDir();
    Journal.create(directory.dir, HEADER.id, NOW).close();
    expect(() => Journal.create(directory?.dir ?? "", HEADER.id, NOW)).toThrow(/EEXIST/);
    expect(readdirSync(directory.dir)).toEqual([`${HEADER.id}.jsonl`]);
  });

  it("names the file and line of an entry it cannot read", () => {
    directory = tempDir();
    const path = join(directory.dir, "x.jsonl");
    writeFileSync(path, `${encodeEntry(HEADER)}{"type":"add","petId":"1","units":-1}\n`);
    expect(() => readJournal(path)).toThrow(JournalError);
    expect(() => readJournal(path)).toThrow(`${path}:2: "units" is not a whole number`);
  });

  it("lists no journals where none was made", () => {
    expect(journalPaths("/nonexistent/petstore/counts")).toEqual([]);
  });
});

describe("SessionLock", () => {
  let directory: { dir: string; remove: () => void } | undefined;
  afterEach(() => {
    directory?.remove();
    directory = undefined;
  });
  const setUp = () => {
    directory = tempDir();
    return {
      journal: join(directory.dir, `${HEADER.id}.jsonl`),
      lock: join(directory.dir, `${HEADER.id}.lock`),
    };
  };

  it("refuses the session while another process of this machine has it, naming it; free again once given back", () => {
    const { journal, lock } = setUp();
    // Held by a process that runs: this one's parent (the test runner).
    const other = { pid: process.ppid, host: hostname(), since: "2026-11-27T00:00:00.000Z" };
    writeFileSync(lock, JSON.stringify(other));
    let refused: unknown;
    try {
      SessionLock.take(journal, HEADER.id, NOW);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(SessionBusyError);
    expect((refused as SessionBusyError).message).toBe(
      `count session ${HEADER.id} is open in another petstore (process ${process.ppid} on this machine, since ${localTime("2026-11-27T00:00:00.000Z")}): two at once would undo each other's lines; nothing was read or posted`,
    );
    expect((refused as SessionBusyError).hint).toBe(
      `finish it there (done, or Ctrl-D); if that process is gone (its machine restarted), delete ${lock} and run this again`,
    );
    expect(JSON.parse(readFileSync(lock, "utf8"))).toEqual(other);
    // Given back by its holder, the session is free.
    rmSync(lock);
    const taken = SessionLock.take(journal, HEADER.id, NOW);
    expect(JSON.parse(readFileSync(lock, "utf8"))).toEqual({
      pid: process.pid,
      host: hostname(),
      since: "2026-11-27T00:30:00.000Z",
    });
    taken.release();
    expect(existsSync(lock)).toBe(false);
  });

  it("takes over a lock naming this process's own pid: an earlier run's (a container's runs are all process 1)", () => {
    const { journal, lock } = setUp();
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), since: "x" }));
    const taken = SessionLock.take(journal, HEADER.id, NOW);
    expect(JSON.parse(readFileSync(lock, "utf8"))).toMatchObject({
      since: "2026-11-27T00:30:00.000Z",
    });
    taken.release();
  });

  it("takes over the lock of a process of this machine that runs no more (a SIGKILL, a crash)", () => {
    const { journal, lock } = setUp();
    // No process has this pid: above the largest Linux allows (2^22).
    writeFileSync(lock, JSON.stringify({ pid: 4_194_305, host: hostname(), since: "x" }));
    const taken = SessionLock.take(journal, HEADER.id, NOW);
    expect(JSON.parse(readFileSync(lock, "utf8"))).toMatchObject({ pid: process.pid });
    taken.release();
  });

  it.each([
    [
      "another machine's (never guessed gone)",
      JSON.stringify({
        pid: 4_194_305,
        host: "till-2.shop.lan",
        since: "2026-11-27T00:00:00.000Z",
      }),
      `process 4194305 on till-2.shop.lan, since ${localTime("2026-11-27T00:00:00.000Z")}`,
    ],
    [
      "one that does not say whose it is",
      "garbled",
      "a lock file that does not say which process has it",
    ],
  ])("refuses %s, and leaves it be", (_what, text, where) => {
    const { journal, lock } = setUp();
    writeFileSync(lock, text);
    expect(() => SessionLock.take(journal, HEADER.id, NOW)).toThrow(
      `count session ${HEADER.id} is open in another petstore (${where}`,
    );
    expect(readFileSync(lock, "utf8")).toBe(text);
  });
});
