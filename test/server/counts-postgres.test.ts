/**
 * Inventory-Seq and count changes through app.inject() on the PostgreSQL store
 * (count-answers.ts): in the `postgres` vitest project.
 */
import { openPostgresStore } from "../../src/server/store/postgres/store.js";
import { createTestDatabase } from "../support/postgres-database.js";
import { describeCountAnswers } from "./count-answers.js";

describeCountAnswers("PostgreSQL", async () => {
  const database = await createTestDatabase();
  return {
    store: await openPostgresStore(database.url),
    cleanup: () => database.drop(),
  };
});
