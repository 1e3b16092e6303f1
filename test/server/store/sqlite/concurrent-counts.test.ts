/** The count rule with tills in other processes selling, on one SQLite file (concurrent-counts.ts). */
import { join } from "node:path";
import { openSqliteStore } from "../../../../src/server/store/sqlite/store.js";
import { tempDir } from "../../fixture.js";
import { describeConcurrentCounts } from "../concurrent-counts.js";

describeConcurrentCounts("SQLite", async () => {
  const temp = tempDir();
  const path = join(temp.dir, "store.db");
  return {
    open: async () => openSqliteStore(path),
    choice: { kind: "sqlite", path },
    cleanup: async () => {
      temp.remove();
    },
  };
});
