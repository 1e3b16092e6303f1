/**
 * Two real `petstore serve` instances on one PostgreSQL database writing the same pets in
 * opposite orders at the same moment, round after round: each instance's batches lock rows in
 * one fixed order, so PostgreSQL never has to break a deadlock (which it would do only after
 * deadlock_timeout, aborting one side's batch) and every write is answered 200; the database
 * reached directly and through PgBouncer in transaction and in session mode.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { createTestDatabase, forEachRoute, queryDatabase } from "../support/postgres-database.js";
import { API_KEY, startServer, type RunningServer, type SeedFileEntry } from "./support/servers.js";

const PETS = 20;
const ROUNDS = 20;

forEachRoute("two instances on one PostgreSQL database", (route, name) => {
  describe(name, () => {
    it("never deadlocks when two instances write the same pets in opposite orders at once", async () => {
      const database = await createTestDatabase(route);
      const seed: SeedFileEntry[] = Array.from({ length: PETS }, (_, i) => ({
        petId: i + 1,
        name: `Pet ${i + 1}`,
        status: "available",
        quantity: 0,
      }));
      const servers: RunningServer[] = [];
      try {
        servers.push(
          ...(await Promise.all([
            startServer({ databaseUrl: database.url, seed }),
            startServer({ databaseUrl: database.url, seed }),
          ])),
        );
        const [a, b] = servers as [RunningServer, RunningServer];
        const ascending = Array.from({ length: PETS }, (_, i) => i + 1);
        const descending = [...ascending].reverse();
        for (let round = 1; round <= ROUNDS; round++) {
          // Every other round carries Idempotency-Keys: those batches claim keys too.
          const keyed = round % 2 === 0;
          const send = (server: RunningServer, petId: number) =>
            fetch(`${server.url}/inventory/${petId}`, {
              method: "PATCH",
              headers: {
                authorization: `Bearer ${API_KEY}`,
                "content-type": "application/json",
                ...(keyed ? { "idempotency-key": randomUUID() } : {}),
              },
              body: JSON.stringify({ quantity: round }),
            }).then((response) => response.status);
          const statuses = await Promise.all([
            ...ascending.map((petId) => send(a, petId)),
            ...descending.map((petId) => send(b, petId)),
          ]);
          expect(statuses).toEqual(Array(2 * PETS).fill(200));
        }
        const items = (await (
          await fetch(`${b.url}/inventory`, { headers: { authorization: `Bearer ${API_KEY}` } })
        ).json()) as { quantity: number }[];
        expect(items.map((item) => item.quantity)).toEqual(Array(PETS).fill(ROUNDS));
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
      // A session counts a deadlock it was aborted for when it ends: wait for all to have ended.
      // A PgBouncer keeps its server sessions after its clients have gone: they are ended here.
      const admin = database.directUrl;
      await queryDatabase(
        admin,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [database.name],
      );
      await eventually(
        "no session left on the database",
        async () => {
          const [sessions] = await queryDatabase<{ n: number }>(
            admin,
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            [database.name],
          );
          return sessions?.n === 0;
        },
        { intervalMs: 50 },
      );
      const [stats] = await queryDatabase<{ deadlocks: number }>(
        admin,
        "SELECT deadlocks::int AS deadlocks FROM pg_stat_database WHERE datname = $1",
        [database.name],
      );
      expect(stats?.deadlocks).toBe(0);
      await database.drop();
    }, 60_000);
  });
});
