import { describe, expect, it } from "vitest";
import type { CountOutcome, CountResult } from "../../src/apply/count-rows.js";
import { postedBeforeNote, writeSessions } from "../../src/output/count.js";
import { localTime } from "../../src/text/local-time.js";
import { createIoStreams } from "../../src/output/io-streams.js";

function result(petId: number, outcome: CountOutcome): CountResult {
  return {
    count: { petId: BigInt(petId), counted: 4, asOf: 12n, ref: `count:12:${petId}` },
    outcome,
    book: null,
    since: null,
    now: 5,
    variance: null,
  };
}

describe("postedBeforeNote", () => {
  it("is empty when no count was posted before", () => {
    expect(postedBeforeNote([result(1, "changed"), result(2, "unchanged")], false)).toBe("");
  });

  it("names the one count posted before, and how a corrected one is corrected", () => {
    expect(postedBeforeNote([result(1, "changed"), result(3, "duplicate")], false)).toBe(
      "note: 1 count (pet 3) was posted before as of seq 12: a count is applied once, so this run did not apply it again, whatever the file says now; if it was corrected since it was posted, add the difference: petstore inventory adjust PETID DELTA\n",
    );
  });

  it("names five pets and counts the rest; a dry run says what it would do", () => {
    const results = [1, 2, 3, 4, 5, 6, 7].map((petId) => result(petId, "duplicate"));
    expect(postedBeforeNote(results, true)).toBe(
      "note: 7 counts (pets 1, 2, 3, 4, 5 and 2 more) were posted before as of seq 12: a count is applied once, so this run would not apply them again, whatever the file says now; if one was corrected since it was posted, add the difference: petstore inventory adjust PETID DELTA\n",
    );
  });
});

describe("writeSessions", () => {
  const session = {
    id: "20261127-150000-0a1b2c3d",
    server: "http://127.0.0.1:4010/v1",
    startedAt: "2026-11-27T15:00:00.100Z",
    pets: 3,
    state: "open" as const,
  };
  const run = (isTTY: boolean) => {
    let out = "";
    const io = createIoStreams({
      out: { write: (text: string) => ((out += text), true) },
      err: { write: () => true },
      isTTY,
      env: {},
      colorFlag: false,
      columns: 200,
    });
    writeSessions([session], io);
    return out;
  };

  it("shows when a session started in the machine's time zone at a terminal, as history does", () => {
    expect(run(true)).toContain(`│ ${localTime(session.startedAt)} │`);
  });

  it("keeps the ISO time, in UTC, in the tab-separated lines a script reads", () => {
    expect(run(false)).toBe(
      "20261127-150000-0a1b2c3d\topen\t3\t2026-11-27T15:00:00.100Z\thttp://127.0.0.1:4010/v1\n",
    );
  });
});
