import { describe, expect, it } from "vitest";
import type { CountOutcome, CountResult } from "../../src/apply/count-rows.js";
import { postedBeforeNote } from "../../src/output/count.js";

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
