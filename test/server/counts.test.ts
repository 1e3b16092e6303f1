/** Inventory-Seq and count changes through app.inject() on the SQLite store (count-answers.ts). */
import { join } from "node:path";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import { describeCountAnswers } from "./count-answers.js";
import { tempDir } from "./fixture.js";

describeCountAnswers("SQLite", async () => {
  const temp = tempDir();
  return {
    store: openSqliteStore(join(temp.dir, "petstore.db")),
    cleanup: async () => {
      temp.remove();
    },
  };
});
