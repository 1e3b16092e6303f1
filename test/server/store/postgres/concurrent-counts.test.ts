/**
 * The count rule with tills in other processes selling, on one PostgreSQL database: each
 * process a store of its own, as server instances are (concurrent-counts.ts).
 */
import { openPostgresStore } from "../../../../src/server/store/postgres/store.js";
import { createTestDatabase } from "../../../support/postgres-database.js";
import { describeConcurrentCounts } from "../concurrent-counts.js";

describeConcurrentCounts("PostgreSQL", async () => {
  const database = await createTestDatabase();
  return {
    open: () => openPostgresStore(database.url),
    choice: { kind: "postgres", url: database.url, name: database.name, poolSize: 4 },
    cleanup: () => database.drop(),
  };
});
