/**
 * What a count costs on SQLite: the net of a pet's changes after a seq walks the pet's chain
 * back from its last change, one record by its id at a time, as far as that seq, and never
 * reads a range of the table (which every count of a batch would read again).
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openConnection } from "../../../../src/server/store/sqlite/connection.js";
import { prepareStatements } from "../../../../src/server/store/sqlite/statements.js";
import { openSqliteStore } from "../../../../src/server/store/sqlite/store.js";
import { tempDir } from "../../fixture.js";

describe("SQLite: a count's sum of what moved since its seq", () => {
  let temp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    temp = tempDir();
  });
  afterEach(() => {
    temp.remove();
  });

  it("is planned as a walk by id from the pet's last change, with no scan of the changes", () => {
    const db = openConnection(join(temp.dir, "store.db"), 1000, () => performance.now());
    const { since } = prepareStatements(db);
    const plan = db
      .prepare<[{ pet: bigint; asOf: bigint }], { detail: string }>(
        `EXPLAIN QUERY PLAN ${since.source}`,
      )
      .all({ pet: 1n, asOf: 1n })
      .map((step) => step.detail);
    db.close();
    const reads = plan.filter((detail) => /\b(SEARCH|SCAN) (c|p)\b/.test(detail));
    expect(reads).toEqual([
      "SEARCH p USING INTEGER PRIMARY KEY (rowid=?)",
      "SEARCH c USING INTEGER PRIMARY KEY (rowid=?)",
      "SEARCH c USING INTEGER PRIMARY KEY (rowid=?)",
    ]);
  });

  it("sums each record after the seq once, a seed's previous as 0, and stops at the seq", async () => {
    const store = openSqliteStore(join(temp.dir, "store.db"));
    await store.seedIfEmpty([
      { id: 1n, name: "a", status: "available", quantity: 5, photoUrls: [], tags: [] },
      { id: 2n, name: "b", status: "available", quantity: 7, photoUrls: [], tags: [] },
    ]);
    // Seqs: 1 and 2 the seeds, then 3 to 8 alternating pets.
    for (const [petId, delta] of [
      [1n, -1],
      [2n, 4],
      [1n, -2],
      [2n, -1],
      [1n, 10],
      [2n, -3],
    ] as const) {
      await store.applyBatch({ atomic: false, dryRun: false, changes: [{ petId, delta }] });
    }
    await store.close();
    const db = openConnection(join(temp.dir, "store.db"), 1000, () => performance.now());
    const { since } = prepareStatements(db);
    const net = (pet: bigint, asOf: bigint) => Number(since.get({ pet, asOf }));
    expect([0n, 1n, 2n, 3n, 5n, 7n, 8n].map((asOf) => net(1n, asOf))).toEqual([
      12, 7, 7, 8, 10, 0, 0,
    ]);
    expect([0n, 1n, 2n, 4n, 6n, 8n].map((asOf) => net(2n, asOf))).toEqual([7, 7, 0, -4, -3, 0]);
    expect(net(3n, 0n)).toBe(0);
    db.close();
  });
});
