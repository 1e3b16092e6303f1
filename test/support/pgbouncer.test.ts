/**
 * The test PgBouncer itself (pgbouncer.ts): it starts in front of the run's server in either
 * mode, reaches a database made after it started, keeps its default ignore_startup_parameters
 * (a startup parameter it does not know is refused, as any PgBouncer refuses it), and stops,
 * leaving no process and no file.
 */
import { existsSync } from "node:fs";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startPgBouncer, targetOf, type RunningPgBouncer } from "./pgbouncer.js";
import {
  createTestDatabase,
  postgresAdminUrl,
  queryDatabase,
  routeUnavailable,
  skippedSuite,
  withDatabase,
  type TestDatabase,
} from "./postgres-database.js";

const missing = routeUnavailable("pgbouncer-transaction");

if (missing !== undefined) {
  skippedSuite(`a test PgBouncer: skipped, ${missing}`);
} else {
  describe.for(["transaction", "session"] as const)("a test PgBouncer in %s mode", (mode) => {
    const databases: TestDatabase[] = [];
    afterAll(async () => {
      for (const database of databases) await database.drop();
    });

    it("serves a database made after it started, refuses a startup parameter it does not know, and stops leaving nothing", async () => {
      const bouncer: RunningPgBouncer = await startPgBouncer(targetOf(postgresAdminUrl()), mode);
      let stopped = false;
      try {
        expect(existsSync(bouncer.dir)).toBe(true);
        expect(bouncer.url).toMatch(/^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/postgres$/);
        const database = await createTestDatabase();
        databases.push(database);
        const url = withDatabase(bouncer.url, database.name);
        await queryDatabase(url, "CREATE TABLE t (n int)");
        await queryDatabase(url, "INSERT INTO t VALUES (7)");
        expect(await queryDatabase(database.url, "SELECT n FROM t")).toEqual([{ n: 7 }]);
        // ignore_startup_parameters at its default: lock_timeout at start-up is refused.
        const client = new pg.Client({ connectionString: url, lock_timeout: 1000 });
        client.on("error", () => undefined);
        await expect(client.connect()).rejects.toThrow(
          /unsupported startup parameter: lock_timeout/,
        );
        await client.end().catch(() => undefined);
        await bouncer.stop();
        stopped = true;
        await expect(queryDatabase(url, "SELECT 1")).rejects.toThrow(/ECONNREFUSED/);
        expect(existsSync(bouncer.dir)).toBe(false);
      } finally {
        if (!stopped) await bouncer.stop();
      }
    });
  });
}
