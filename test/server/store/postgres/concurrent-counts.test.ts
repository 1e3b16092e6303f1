/**
 * The count rule with tills in other processes selling, on one PostgreSQL database: each
 * process a store of its own, as server instances are (concurrent-counts.ts); reached
 * directly and through PgBouncer in transaction and in session mode.
 */
import { openPostgresStore } from "../../../../src/server/store/postgres/store.js";
import { createTestDatabase, forEachRoute } from "../../../support/postgres-database.js";
import { describeConcurrentCounts } from "../concurrent-counts.js";

forEachRoute("PostgreSQL", (route, name) => {
  describeConcurrentCounts(name, async () => {
    const database = await createTestDatabase(route);
    return {
      open: () => openPostgresStore(database.url),
      choice: { kind: "postgres", url: database.url, name: database.name, poolSize: 4 },
      cleanup: () => database.drop(),
    };
  });
});
