/** The progress bar of db copy: drawn only on a stream it is given, from the first update. */
import { describe, expect, it } from "vitest";
import { startCopyProgress } from "../../src/output/copy-progress.js";
import { captureStream } from "../commands/fake-deps.js";

describe("startCopyProgress", () => {
  it("draws nothing before the total is known, then the rows copied of all, and the table", () => {
    const err = captureStream();
    const progress = startCopyProgress(err.stream);
    expect(err.text()).toBe("");
    progress.update(0, 24_000, "pets");
    expect(err.text()).toContain("copying [------------------------------] 0/24000 rows (pets)");
    progress.stop();
    progress.update(24_000, 24_000, "history records");
    expect(err.text()).not.toContain("24000/24000");
  });
});
