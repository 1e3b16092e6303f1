import {
  chmodSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { closeSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import {
  checkCursorDirectory,
  readCursorFile,
  saveCursorFile,
} from "../../src/feed/cursor-file.js";
import { tempDir } from "../support/temp-dir.js";

let temp: { dir: string; remove: () => void };
beforeEach(() => {
  temp = tempDir("petstore-cursor-");
});
afterEach(() => {
  temp.remove();
});

async function failure(promise: Promise<unknown>): Promise<UsageError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe("readCursorFile", () => {
  it("starts from 0, the beginning of the feed, when the file does not exist", async () => {
    await expect(readCursorFile(join(temp.dir, "changes.cursor"))).resolves.toEqual({ seq: 0n });
  });

  it.each([
    ["0\n", 0n],
    ["1234\n", 1234n],
    ["  77  \n", 77n],
    ["9223372036854775807", 9223372036854775807n],
  ])("reads %j as seq %s, exactly", async (text, seq) => {
    const path = join(temp.dir, "changes.cursor");
    writeFileSync(path, text);
    await expect(readCursorFile(path)).resolves.toEqual({ seq });
  });

  it("reads the change the last-change file names at the cursor's seq, exactly as written", async () => {
    const path = join(temp.dir, "changes.cursor");
    writeFileSync(path, "1234\n");
    writeFileSync(
      `${path}.last-change`,
      "1234 pet 9223372036854775807 at 2026-11-25T12:53:02.980Z\n",
    );
    await expect(readCursorFile(path)).resolves.toEqual({
      seq: 1234n,
      mark: { petId: 9223372036854775807n, at: "2026-11-25T12:53:02.980Z" },
    });
    // Of another seq (the cursor written by hand): it names nothing, and is not checked.
    writeFileSync(path, "1200\n");
    await expect(readCursorFile(path)).resolves.toEqual({ seq: 1200n });
    // No cursor file: the beginning, whatever is beside it.
    rmSync(path);
    await expect(readCursorFile(path)).resolves.toEqual({ seq: 0n });
  });

  it.each([
    ["12 pet 4 at\n"],
    ["12 pet 04 at 2026-11-25T12:53:02.980Z\n"],
    ["pet 4 at 2026-11-25T12:53:02.980Z\n"],
    ["12 pet 4 at 2026-11-25T12:53:02.980Z\nmore\n"],
  ])(
    "refuses a last-change file %j that names no change as a run writes it (exit 2)",
    async (text) => {
      const path = join(temp.dir, "changes.cursor");
      writeFileSync(path, "12\n");
      writeFileSync(`${path}.last-change`, text);
      const error = await failure(readCursorFile(path));
      expect(error.exitCode).toBe(2);
      expect(error.message).toContain(
        `the last-change file ${path}.last-change does not name a change: found ${JSON.stringify(text.trim().slice(0, 40)).slice(0, -1)}`,
      );
      expect(error.hint).toContain("delete it, and the next run makes a new one");
    },
  );

  it.each([
    ["", "it is empty"],
    ["\n", "it is empty"],
    ["abc\n", 'found "abc", expected a whole number from 0 to 9223372036854775807'],
    ["-1", 'found "-1", expected a whole number'],
    ["12\n13\n", 'found "12\\n13", expected a whole number'],
    ["007", 'found "007", leading zeros are not allowed; write 7'],
    ["9223372036854775808", 'found "9223372036854775808", expected a whole number'],
    ['{"next": 5}', 'found "{\\"next\\": 5}"'],
  ])("refuses %j (exit 2, naming the file and what it found)", async (text, found) => {
    const path = join(temp.dir, "changes.cursor");
    writeFileSync(path, text);
    const error = await failure(readCursorFile(path));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(`the cursor file ${path} does not hold a seq: ${found}`);
    expect(error.hint).toContain("delete it to start from the first change");
  });

  it("shortens a long malformed file in the message", async () => {
    const path = join(temp.dir, "changes.cursor");
    writeFileSync(path, "x".repeat(5000));
    const error = await failure(readCursorFile(path));
    expect(error.message).toContain(`found "${"x".repeat(40)}…"`);
    expect(error.message.length).toBeLessThan(300);
  });

  it("refuses a cursor file that is a directory (exit 2)", async () => {
    const path = join(temp.dir, "cursor-dir");
    mkdirSync(path);
    const error = await failure(readCursorFile(path));
    expect(error.message).toBe(`cannot read the cursor file ${path}: it is a directory`);
  });

  it.skipIf(process.getuid?.() === 0)(
    "refuses a cursor file it may not read (exit 2)",
    async () => {
      const path = join(temp.dir, "changes.cursor");
      writeFileSync(path, "5\n");
      chmodSync(path, 0o000);
      const error = await failure(readCursorFile(path));
      expect(error.message).toBe(`cannot read the cursor file ${path}: permission denied`);
    },
  );
});

describe("checkCursorDirectory", () => {
  it("accepts a file that does not exist yet in a directory that does", async () => {
    await expect(checkCursorDirectory(join(temp.dir, "new.cursor"))).resolves.toBeUndefined();
  });

  it("refuses a cursor file in a directory that does not exist (exit 2)", async () => {
    const path = join(temp.dir, "missing", "changes.cursor");
    const error = await failure(checkCursorDirectory(path));
    expect(error.message).toBe(
      `cannot save the cursor file ${path}: its directory ${join(temp.dir, "missing")}: no such file or directory`,
    );
    expect(error.hint).toContain("a directory that exists");
  });
});

describe("saveCursorFile", () => {
  it("writes the seq on one line, which readCursorFile reads back exactly", async () => {
    const path = join(temp.dir, "changes.cursor");
    await saveCursorFile(path, 9223372036854775807n, undefined);
    expect(readFileSync(path, "utf8")).toBe("9223372036854775807\n");
    await expect(readCursorFile(path)).resolves.toEqual({ seq: 9223372036854775807n });
  });

  it("writes the change at the seq in the last-change file, read back exactly", async () => {
    const path = join(temp.dir, "changes.cursor");
    const mark = { petId: 42n, at: "2026-11-25T12:53:02.980Z" };
    await saveCursorFile(path, 10n, mark);
    expect(readFileSync(path, "utf8")).toBe("10\n");
    expect(readFileSync(`${path}.last-change`, "utf8")).toBe(
      "10 pet 42 at 2026-11-25T12:53:02.980Z\n",
    );
    await expect(readCursorFile(path)).resolves.toEqual({ seq: 10n, mark });
    // A time it could not read back (not one of petstore's) is left out: nothing names 11.
    await saveCursorFile(path, 11n, { petId: 42n, at: "25 Nov 2026" });
    expect(readFileSync(path, "utf8")).toBe("11\n");
    await expect(readCursorFile(path)).resolves.toEqual({ seq: 11n });
  });

  it("replaces the file by a rename, never writing into it: an open copy keeps the old cursor", async () => {
    const path = join(temp.dir, "changes.cursor");
    writeFileSync(path, "100\n");
    const old = openSync(path, "r");
    try {
      await saveCursorFile(path, 2500n, undefined);
      const buffer = Buffer.alloc(16);
      const read = readSync(old, buffer, 0, 16, 0);
      // The file descriptor still names the old file, whole: the new one replaced its name.
      expect(buffer.subarray(0, read).toString()).toBe("100\n");
    } finally {
      closeSync(old);
    }
    expect(readFileSync(path, "utf8")).toBe("2500\n");
    expect(readdirSync(temp.dir)).toEqual(["changes.cursor"]);
  });

  it("leaves another run's temporary file alone: two runs given one file both save", async () => {
    const path = join(temp.dir, "changes.cursor");
    // Another process (a job that overlapped this one) in the middle of its own save.
    const theirs = `${path}.${process.pid + 1}.tmp`;
    writeFileSync(theirs, "41\n");
    writeFileSync(path, "7\n");
    await saveCursorFile(path, 8n, undefined);
    expect(readFileSync(path, "utf8")).toBe("8\n");
    expect(readFileSync(theirs, "utf8")).toBe("41\n");
    expect(readdirSync(temp.dir).sort()).toEqual(["changes.cursor", basename(theirs)].sort());
  });

  it("says what was printed and what happens next when it cannot save (exit 2)", async () => {
    const path = join(temp.dir, "gone", "changes.cursor");
    const error = await failure(saveCursorFile(path, 42n, undefined));
    expect(error.message).toBe(`cannot save the cursor file ${path}: no such file or directory`);
    expect(error.hint).toBe(
      "the changes up to seq 42 were printed; the next run starts from the cursor the file still holds and prints them again",
    );
  });
});
