/**
 * Inventory-Seq and count changes through app.inject() on the PostgreSQL store
 * (count-answers.ts): in the `postgres` vitest project, directly and through PgBouncer in
 * transaction and in session mode.
 */
import { openPostgresStore } from "../../src/server/store/postgres/store.js";
import { createTestDatabase, forEachRoute } from "../support/postgres-database.js";
import { describeCountAnswers } from "./count-answers.js";

forEachRoute("PostgreSQL", (route, name) => {
  describeCountAnswers(name, async () => {
    const database = await createTestDatabase(route);
    return {
      store: await openPostgresStore(database.url),
      cleanup: () => database.drop(),
    };
  });
});
