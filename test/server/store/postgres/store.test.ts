import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../../../src/server/store/sqlite/migrations.js";
import {
  MIGRATION_LOCK,
  POSTGRES_MIGRATIONS,
} from "../../../../src/server/store/postgres/migrations.js";
import { beginTransaction, createPool } from "../../../../src/server/store/postgres/connection.js";
import { openPostgresStore, SEED_LOCK } from "../../../../src/server/store/postgres/store.js";
import { IDEMPOTENCY_TTL_MS, type Store } from "../../../../src/server/store/store.js";
import { StoreUnavailableError } from "../../../../src/server/store/store-unavailable-error.js";
import {
  createTestDatabase,
  forEachRoute,
  passwordRefusal,
  queryDatabase,
  type TestDatabase,
} from "../../../support/postgres-database.js";
import { PETS } from "../../fixture.js";
import { eventually } from "../../../support/eventually.js";
import { describeStoreContract } from "../contract.js";

// Each suite on the database reached directly, and through PgBouncer in transaction and in
// session mode (test/support/postgres-global-setup.ts).
forEachRoute("PostgreSQL", (route, name) => {
  describeStoreContract(name, async () => {
    const databases: TestDatabase[] = [];
    const database = async () => {
      const made = await createTestDatabase(route);
      databases.push(made);
      return made;
    };
    const main = await database();
    return {
      open: () => openPostgresStore(main.url),
      openOther: async () => openPostgresStore((await database()).url),
      cleanup: async () => {
        for (const made of databases) await made.drop();
      },
    };
  });
});

forEachRoute("PostgreSQL store: engine-specific behaviour", (route, name) => {
  describe(name, () => {
    let database: TestDatabase;
    const stores: Store[] = [];
    const open = async (url = database.url) => {
      const store = await openPostgresStore(url, { connectTimeoutMs: 2_000 });
      stores.push(store);
      return store;
    };
    const query = <R extends pg.QueryResultRow>(sql: string) => queryDatabase<R>(database.url, sql);
    beforeEach(async () => {
      database = await createTestDatabase(route);
    });
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
      await database.drop();
    });

    it("applies every write whatever the database's default isolation: two instances' writers of one pet", async () => {
      // A hosted database may default to repeatable read, where a transaction that finds its
      // pet changed since its first statement fails (40001): each statement of a write must
      // see what committed before it, as read committed does.
      await query(
        `ALTER DATABASE "${database.name}" SET default_transaction_isolation TO 'repeatable read'`,
      );
      const [first, second] = [await open(), await open()];
      await first.seedIfEmpty(PETS);
      const settled: PromiseSettledResult<unknown>[] = [];
      for (let round = 0; round < 30; round++) {
        const sale = (store: Store, side: string) =>
          store.applyBatch({
            atomic: false,
            dryRun: false,
            changes: [{ petId: 1n, delta: 1, ref: `sale:${round}:${side}` }],
          });
        settled.push(...(await Promise.allSettled([sale(first, "a"), sale(second, "b")])));
      }
      const failures = settled.flatMap((outcome) =>
        outcome.status === "rejected" ? [String(outcome.reason)] : [],
      );
      expect(failures).toEqual([]);
      expect((await second.getInventoryItem(1n))?.item.quantity).toBe(3 + 60);
    });

    it("numbers its schema versions as the SQLite store does", async () => {
      await open();
      expect(POSTGRES_MIGRATIONS).toHaveLength(MIGRATIONS.length);
      expect(await query("SELECT version FROM petstore_schema")).toEqual([
        { version: MIGRATIONS.length },
      ]);
    });

    it("drops the cache leases' table of version 5 on open, keeping the data", async () => {
      await query("CREATE TABLE petstore_schema (version integer NOT NULL)");
      for (const migration of POSTGRES_MIGRATIONS.slice(0, 5)) await query(migration);
      await query("INSERT INTO petstore_schema (version) VALUES (5)");
      await query(
        "INSERT INTO pets (id, name, status, quantity) VALUES (1, 'Rex', 'available', 4)",
      );
      await query("INSERT INTO inventory_instances VALUES ('old', now())");
      const store = await open();
      expect((await store.getInventoryItem(1n))?.item).toEqual({
        petId: 1n,
        quantity: 4,
        status: "available",
      });
      expect(await query("SELECT to_regclass('inventory_instances') AS t")).toEqual([{ t: null }]);
    });

    it("renames version 8's idempotency_keys to idempotency_records on open: its records still replay", async () => {
      await query("CREATE TABLE petstore_schema (version integer NOT NULL)");
      for (const migration of POSTGRES_MIGRATIONS.slice(0, 8)) await query(migration);
      await query("INSERT INTO petstore_schema (version) VALUES (8)");
      await query(
        "INSERT INTO pets (id, name, status, quantity) VALUES (1, 'Rex', 'available', 4)",
      );
      await query(
        `INSERT INTO idempotency_keys (owner, key, fingerprint, created_at, status, body, etag)
         VALUES ('o', 'k', 'f', ${Date.now()}, 200, 'kept', '"4"')`,
      );
      const store = await open();
      const claim = (fingerprint: string) => ({
        owner: "o",
        key: "k",
        fingerprint,
        at: Date.now(),
        render: () => ({ status: 200, body: "new", etag: null }),
      });
      expect(await store.updateQuantity(1n, 4, { idempotency: claim("f") })).toEqual({
        kind: "replayed",
        response: { status: 200, body: "kept", etag: '"4"' },
        // Kept before records kept their seq: replayed without one.
        seq: null,
      });
      expect(await store.updateQuantity(1n, 9, { idempotency: claim("g") })).toEqual({
        kind: "key_reused",
      });
      expect(await query("SELECT to_regclass('idempotency_keys') AS t")).toEqual([{ t: null }]);
    });

    it("keeps version 12's write for a server of that version still running: its records, new or taken over, replay without a seq", async () => {
      const store = await open();
      await store.seedIfEmpty([
        { id: 1n, name: "Rex", status: "available", quantity: 4, photoUrls: [], tags: [] },
      ]);
      // What a version-12 server sends to keep one answer (no changes): nineteen arguments.
      const keepAsVersion12 = (key: string) =>
        query(
          `SELECT petstore_write_planned('{}'::bigint[], '{}'::integer[], '{o}', '{${key}}',
             '{f}', ARRAY[${Date.now()}]::bigint[], '{200}'::integer[], '{kept}',
             ARRAY[NULL]::text[], '{}'::bigint[], '{}'::bigint[], '{}'::integer[],
             '{}'::integer[], '{}'::text[], '{}'::text[], '{}'::text[], '{}'::text[],
             '{}'::text[], '{}'::text[])`,
        );
      const claim = (key: string, at = Date.now()) => ({
        owner: "o",
        key,
        fingerprint: "f",
        at,
        render: () => ({ status: 200, body: "new", etag: null }),
      });
      const replayed = { kind: "replayed", response: { status: 200, body: "kept", etag: null } };
      await keepAsVersion12("old");
      expect(await store.updateQuantity(1n, 4, { idempotency: claim("old") })).toEqual({
        ...replayed,
        seq: null,
      });
      // This version's record, expired, taken over by a version-12 server: its seq goes too.
      const expired = claim("taken", Date.now() - IDEMPOTENCY_TTL_MS - 1000);
      expect(await store.updateQuantity(1n, 6, { idempotency: expired })).toMatchObject({
        kind: "updated",
      });
      await keepAsVersion12("taken");
      expect(await store.updateQuantity(1n, 4, { idempotency: claim("taken") })).toEqual({
        ...replayed,
        seq: null,
      });
      // This version's own records keep theirs.
      const written = await store.updateQuantity(1n, 5, { idempotency: claim("new") });
      expect(written).toMatchObject({ kind: "updated" });
      expect(await store.updateQuantity(1n, 5, { idempotency: claim("new") })).toEqual({
        kind: "replayed",
        response: { status: 200, body: "new", etag: null },
        seq: written.kind === "updated" ? written.seq : "none",
      });
    });

    it("migrates once when instances start together on an empty database", async () => {
      const [first, , , last] = await Promise.all([open(), open(), open(), open()]);
      await first.seedIfEmpty(PETS);
      expect((await last.listInventory()).items).toHaveLength(PETS.length);
      expect(await query("SELECT count(*)::int AS n FROM petstore_schema")).toEqual([{ n: 1 }]);
    });

    it("waits for another instance's migration however long it takes, past the lock time-out", async () => {
      const holder = new pg.Client({ connectionString: database.url });
      await holder.connect();
      try {
        // Another instance in the middle of a migration: it holds the migration lock.
        await holder.query("BEGIN");
        await holder.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
        // A lock time-out of 1 ms: had it bounded this wait, the open would have failed before
        // the wait could be seen.
        const opening = openPostgresStore(database.url, { lockTimeoutMs: 1 });
        const settled = opening.then(
          () => "opened",
          (error: unknown) => `failed: ${String(error)}`,
        );
        await eventually("the second instance waiting for the migration lock", async () => {
          const [row] = await query(
            "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
          );
          return (row as { n: number } | undefined)?.n === 1;
        });
        await holder.query("COMMIT");
        expect(await settled).toBe("opened");
        stores.push(await opening);
      } finally {
        await holder.end();
      }
    });

    it("seeds once when instances seed an empty database together", async () => {
      const [a, b] = await Promise.all([open(), open()]);
      const seeded = await Promise.all([a.seedIfEmpty(PETS), b.seedIfEmpty(PETS)]);
      expect(seeded.sort()).toEqual([false, true]);
    });

    it("waits for another instance's seed however long it takes, past the lock time-out and the statement bound", async () => {
      // A lock time-out of 1 ms and a statement bound of 301 ms (lock time-out + connect
      // time-out): had either bounded the wait for the seed lock, the seed would have failed.
      const store = await openPostgresStore(database.url, {
        lockTimeoutMs: 1,
        connectTimeoutMs: 300,
      });
      stores.push(store);
      const holder = new pg.Client({ connectionString: database.url });
      await holder.connect();
      try {
        // Another instance in the middle of a seed: it holds the seed lock.
        await holder.query("BEGIN");
        await holder.query("SELECT pg_advisory_xact_lock($1)", [SEED_LOCK]);
        const seeding = store.seedIfEmpty(PETS).then(
          (seeded) => `seeded: ${seeded}`,
          (error: unknown) => `failed: ${String(error)}`,
        );
        await eventually("the seed waiting for the seed lock", async () => {
          const [row] = await query(
            "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
          );
          return (row as { n: number } | undefined)?.n === 1;
        });
        // Held past the statement bound: the wait outlives it.
        await new Promise((resolve) => setTimeout(resolve, 600));
        await holder.query("COMMIT");
        expect(await seeding).toBe("seeded: true");
        expect((await store.listInventory()).items).toHaveLength(PETS.length);
      } finally {
        await holder.end();
      }
    });

    it("refuses a database whose schema is newer than it knows", async () => {
      await (await open()).close();
      await query(`UPDATE petstore_schema SET version = ${POSTGRES_MIGRATIONS.length + 1}`);
      await expect(openPostgresStore(database.url)).rejects.toThrow(
        /newer than this petstore supports/,
      );
    });

    it("commits with synchronous_commit on whatever the server's default, and bounds lock waits, in its transactions alone", async () => {
      // Set before any session through a pooler has opened: each of them starts with it.
      await queryDatabase(
        database.directUrl,
        `ALTER DATABASE ${database.name} SET synchronous_commit = off`,
      );
      expect(await query("SHOW synchronous_commit")).toEqual([{ synchronous_commit: "off" }]);
      const pool = createPool(database.url, { poolSize: 1, connectTimeoutMs: 1000 });
      pool.on("error", () => undefined);
      const settings = async () => ({
        ...(await pool.query<{ synchronous_commit: string }>("SHOW synchronous_commit")).rows[0],
        ...(await pool.query<{ lock_timeout: string }>("SHOW lock_timeout")).rows[0],
      });
      try {
        // The session is as the server set it: a pooler in transaction mode passes nothing else.
        expect(await settings()).toEqual({ synchronous_commit: "off", lock_timeout: "0" });
        const client = await pool.connect();
        try {
          await beginTransaction(client, 1234);
          expect({
            ...(await client.query("SHOW synchronous_commit")).rows[0],
            ...(await client.query("SHOW lock_timeout")).rows[0],
          }).toEqual({ synchronous_commit: "on", lock_timeout: "1234ms" });
          await client.query("COMMIT");
        } finally {
          client.release();
        }
        // SET LOCAL: nothing is left in the session for the next transaction on it.
        expect(await settings()).toEqual({ synchronous_commit: "off", lock_timeout: "0" });
      } finally {
        await pool.end();
      }
    });

    it("answers busy, writing nothing, when another session holds the row past the lock time-out", async () => {
      const store = await openPostgresStore(database.url, { lockTimeoutMs: 200 });
      stores.push(store);
      await store.seedIfEmpty(PETS);
      const holder = new pg.Client({ connectionString: database.url });
      await holder.connect();
      try {
        await holder.query("BEGIN");
        await holder.query("SELECT * FROM pets WHERE id = 1 FOR UPDATE");
        const revision = await store.revision();
        expect(await store.updateQuantity(1n, 9)).toEqual({ kind: "busy" });
        expect(await store.revision()).toBe(revision);
        await holder.query("ROLLBACK");
        expect(await store.updateQuantity(1n, 9)).toMatchObject({ kind: "updated" });
      } finally {
        await holder.end();
      }
    });

    // Through PgBouncer in transaction mode no backend is the store's own: PgBouncer lends one
    // for each transaction, and replaces one killed unseen by the store.
    it.skipIf(route === "pgbouncer-transaction")(
      "reads the revision on one kept connection, and opens another when that one is killed",
      async () => {
        const connectionErrors: string[] = [];
        const store = await openPostgresStore(database.url, {
          onConnectionError: (message) => connectionErrors.push(message),
        });
        stores.push(store);
        await store.seedIfEmpty(PETS);
        const backends = async () =>
          (
            await query<{ pid: number; query: string }>(
              `SELECT pid, query FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid()`,
            )
          ).filter((backend) => backend.query.includes("inventory_revision"));
        const first = await store.revision();
        expect(await store.revision()).toBe(first);
        const [kept, ...others] = await backends();
        expect(kept).toBeDefined();
        expect(others).toEqual([]);
        // Killed while idle: the process must not crash on the connection's error event, which
        // the store tells its listener.
        await query(`SELECT pg_terminate_backend(${kept?.pid})`);
        await eventually("the killed connection's error event", () => connectionErrors.length > 0);
        // PgBouncer in session mode passes the server's words on, and may say its own as it
        // closes our connection ("server conn crashed?"): each is told.
        const [killed, ...more] = connectionErrors;
        expect(killed).toMatch(/terminat/i);
        for (const said of more) expect(said).toMatch(/server conn crashed/);
        if (route === "direct") expect(more).toEqual([]);
        expect(await store.updateQuantity(1n, 9)).toMatchObject({ kind: "updated" });
        const after = await store.revision();
        expect(after).not.toBe(first);
        const [replacement] = await backends();
        expect(replacement?.pid).not.toBe(kept?.pid);
      },
    );

    it("gives up a revision read that hangs, with its connection, and reads on a new one after", async () => {
      const store = await openPostgresStore(database.url, {
        connectTimeoutMs: 300,
        lockTimeoutMs: 20_000,
      });
      stores.push(store);
      await store.seedIfEmpty(PETS);
      const before = await store.revision();
      const holder = new pg.Client({ connectionString: database.url });
      await holder.connect();
      try {
        // The read waits for this lock far longer than the 300 ms it is given.
        await holder.query("BEGIN");
        await holder.query("LOCK TABLE inventory_revision IN ACCESS EXCLUSIVE MODE");
        const holdsLock = async () =>
          (
            await query<{ held: boolean }>(
              `SELECT count(*) > 0 AS held FROM pg_locks
                WHERE relation = 'inventory_revision'::regclass AND mode = 'AccessExclusiveLock'
                  AND granted`,
            )
          )[0]?.held;
        const error = await store.revision().catch((caught: unknown) => caught);
        // Given up by its own time-out while the lock is still held, not by the lock going away.
        expect(error).toBeInstanceOf(StoreUnavailableError);
        expect((error as Error).message).toMatch(/query read timeout/i);
        expect(await holdsLock()).toBe(true);
        await holder.query("ROLLBACK");
        expect(await store.revision()).toBe(before);
      } finally {
        await holder.end();
      }
    });

    it("keeps int64 ids exact in every column", async () => {
      const store = await open();
      const [pet] = PETS;
      if (!pet) throw new Error("fixture has no pet");
      await store.seedIfEmpty([
        { ...pet, id: 9223372036854775807n, category: { id: 9223372036854775806n, name: "X" } },
      ]);
      expect(await store.getPet(9223372036854775807n)).toMatchObject({
        id: 9223372036854775807n,
        category: { id: 9223372036854775806n, name: "X" },
      });
      // pg's global type parsers are untouched: int8 is still a string to everyone else.
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      expect((await client.query("SELECT 9223372036854775807::int8 AS n")).rows).toEqual([
        { n: "9223372036854775807" },
      ]);
      await client.end();
    });

    it("rejects with StoreUnavailableError naming host and database, not the password, when it cannot connect", async () => {
      const url = "postgres://petstore:hunter2-secret@127.0.0.1:1/inventory";
      const error = await openPostgresStore(url, { connectTimeoutMs: 1_000 }).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/database inventory on 127\.0\.0\.1:1/);
      expect((error as Error).message).toMatch(/ECONNREFUSED/);
      expect((error as Error).message).not.toContain("hunter2");
    });

    it("rejects with a plain Error (a configuration fault) for a wrong password or database", async () => {
      const wrongPassword = database.url.replace(/:[^:@/]*@/, ":not-the-password@");
      const error = await openPostgresStore(wrongPassword).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(passwordRefusal(route));
      expect((error as Error).message).not.toContain("not-the-password");
      const noDatabase = database.url.replace(database.name, "no_such_database");
      await expect(openPostgresStore(noDatabase)).rejects.toThrow(/does not exist/);
    });
  });
});
