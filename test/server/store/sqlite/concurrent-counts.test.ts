/** The count rule with tills in other processes selling, on one SQLite file (concurrent-counts.ts). */
import { join } from "node:path";
import { openSqliteStore } from "../../../../src/server/store/sqlite/store.js";
import { tempDir } from "../../fixture.js";
import { describeConcurrentCounts } from "../concurrent-counts.js";

describeConcurrentCounts("SQLite", async () => {
  const temp = tempDir();
  const path = join(temp.dir, "store.db");
  return {
    // As the tills do: three processes take turns at one write lock by polling it, with no
    // queue, so on a loaded machine a count may wait longer than the default 5 s for its turn
    // (it would answer `busy`, and a client would send it again). This proof is of the sums.
    open: async () => openSqliteStore(path, { lockTimeoutMs: 30_000 }),
    choice: { kind: "sqlite", path },
    cleanup: async () => {
      temp.remove();
    },
  };
});
