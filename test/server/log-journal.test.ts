/**
 * The log under systemd: each line led by its syslog priority, only when the log's stream is
 * the one JOURNAL_STREAM names (its device and inode).
 */
import { closeSync, fstatSync, openSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  isJournalStream,
  syslogPriority,
  withSyslogPriority,
} from "../../src/server/log-journal.js";
import { serverLogger } from "../../src/server/log-format.js";
import { tempDir } from "../support/temp-dir.js";

describe("syslogPriority", () => {
  it("maps pino's levels to sd-daemon(3)'s priorities", () => {
    expect([60, 50, 40, 30, 20, 10].map(syslogPriority)).toEqual([2, 3, 4, 6, 7, 7]);
  });
});

describe("withSyslogPriority", () => {
  it("puts each line's priority in front of its JSON, which stays whole", () => {
    const lines: string[] = [];
    const log = serverLogger(withSyslogPriority({ write: (line) => lines.push(line) }), "trace");
    log.fatal("f");
    log.error({ err: new Error("boom") }, "e");
    log.warn("w");
    log.info("i");
    log.debug("d");
    log.trace("t");
    expect(lines.map((line) => line.slice(0, 3))).toEqual([
      "<2>",
      "<3>",
      "<4>",
      "<6>",
      "<7>",
      "<7>",
    ]);
    for (const line of lines) {
      expect(line.endsWith("\n")).toBe(true);
      expect(line.slice(0, -1)).not.toContain("\n");
      expect(JSON.parse(line.slice(3))).toHaveProperty("msg");
    }
  });
});

describe("isJournalStream", () => {
  let temp: { dir: string; remove(): void };
  let fd: number;
  beforeEach(() => {
    temp = tempDir();
    fd = openSync(join(temp.dir, "log"), "a");
  });
  afterEach(() => {
    closeSync(fd);
    temp.remove();
  });

  it("is true only for the stream whose device:inode JOURNAL_STREAM names", () => {
    const stat = fstatSync(fd, { bigint: true });
    expect(isJournalStream(`${stat.dev}:${stat.ino}`, fd)).toBe(true);
    expect(isJournalStream(`${stat.dev}:${stat.ino + 1n}`, fd)).toBe(false);
    expect(isJournalStream(`${stat.dev + 1n}:${stat.ino}`, fd)).toBe(false);
  });

  it("is false without the variable, with a malformed one, or for a closed descriptor", () => {
    const stat = fstatSync(fd, { bigint: true });
    expect(isJournalStream(undefined, fd)).toBe(false);
    expect(isJournalStream("", fd)).toBe(false);
    expect(isJournalStream(`${stat.dev}-${stat.ino}`, fd)).toBe(false);
    expect(isJournalStream(`${stat.dev}:${stat.ino}:1`, fd)).toBe(false);
    const closed = openSync(join(temp.dir, "other"), "a");
    const closedStat = fstatSync(closed, { bigint: true });
    closeSync(closed);
    expect(isJournalStream(`${closedStat.dev}:${closedStat.ino}`, closed)).toBe(false);
  });
});
