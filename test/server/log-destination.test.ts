import { closeSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { logDestination, type TextOut } from "../../src/server/log-destination.js";
import { eventually } from "../support/eventually.js";
import { cannotMountTmpfs, fillFileSystem, mountTmpfs } from "../support/tmpfs.js";

const whyNoTmpfs = cannotMountTmpfs();

describe.skipIf(whyNoTmpfs !== undefined)(
  whyNoTmpfs === undefined
    ? "the server's log on a full disk (a tmpfs mounted by the test)"
    : `the server's log on a full disk: skipped, cannot mount a tmpfs (${whyNoTmpfs})`,
  () => {
    it("holds lines up to its limit, drops the rest, and reports how many once it writes again", async () => {
      const tmpfs = mountTmpfs("256k");
      const path = join(tmpfs.dir, "petstore.log");
      const fd = openSync(path, "a");
      const logs = logDestination({ fd } as unknown as TextOut, {}, 16 * 1024);
      try {
        const reports: number[] = [];
        logs.onDropped((lines) => {
          reports.push(lines);
          // The first report is itself too long for what may be held: dropped, as a report
          // written to a log that can take little is.
          if (reports.length === 1) logs.stream.write(`${"x".repeat(20 * 1024)}\n`);
        });
        fillFileSystem(join(tmpfs.dir, "filler"));
        const LINES = 400;
        for (let i = 0; i < LINES; i += 1) {
          // 100 bytes a line: 40,000 bytes against 16 KiB held.
          logs.stream.write(`${`{"line":${i}}`.padEnd(99, " ")}\n`);
        }
        expect(reports).toEqual([]);
        rmSync(join(tmpfs.dir, "filler"));
        // The half-second flush writes what was held, and the count of what was not.
        await eventually("the dropped lines reported", () => reports.length > 0);
        const [first = 0] = reports;
        expect(first).toBeGreaterThan(0);
        // That report was lost: the next write counts those lines again, and the report too.
        // Once what was held is written (the file stops growing), one more line is written.
        let size = -1;
        await eventually(
          "what was held written",
          () => {
            const now = statSync(path).size;
            const still = now === size;
            size = now;
            return still;
          },
          { intervalMs: 600 },
        );
        logs.stream.write(`${`{"line":${LINES}}`.padEnd(99, " ")}\n`);
        await eventually("the dropped lines reported again", () => reports.length > 1);
        expect(reports).toEqual([first, first + 1]);
        logs.close();
        const written = readFileSync(path, "utf8")
          .split("\n")
          .filter((line) => line !== "");
        for (const line of written) expect(line).toMatch(/^\{"line":\d+\} *$/);
        expect(written.length + first).toBe(LINES + 1);
      } finally {
        logs.close();
        closeSync(fd);
        tmpfs.unmount();
      }
    });
  },
);
