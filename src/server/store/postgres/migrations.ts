/**
 * Versioned schema migrations of the PostgreSQL store, numbered as the SQLite store's
 * (`../sqlite/migrations.ts`): version N holds what SQLite's version N holds. The table
 * `petstore_schema` records the version. Never edit a migration that has shipped: append one.
 */
import type pg from "pg";
import { refuseNewerSchema } from "../store.js";
import { beginTransaction, checkOut, isUnreachable, waitForAdvisoryLock } from "./connection.js";

/** The key of the advisory lock that serializes migrations of instances started together. */
export const MIGRATION_LOCK = "7310593858348875621";

export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE pets (
    id            bigint  PRIMARY KEY CHECK (id > 0),
    name          text    NOT NULL,
    status        text    NOT NULL CHECK (status IN ('available', 'pending', 'sold')),
    quantity      integer NOT NULL DEFAULT 0 CHECK (quantity >= 0),
    category_id   bigint,
    category_name text,
    photo_urls    text    NOT NULL DEFAULT '[]',
    tags          text    NOT NULL DEFAULT '[]'
  );

  CREATE TABLE orders (
    id        bigint  PRIMARY KEY CHECK (id > 0),
    pet_id    bigint  NOT NULL REFERENCES pets (id),
    quantity  integer NOT NULL CHECK (quantity > 0),
    ship_date text    NOT NULL,
    status    text    NOT NULL CHECK (status IN ('placed', 'approved', 'delivered')),
    complete  boolean NOT NULL
  );

  -- One row counting committed inventory changes, raised in each change's transaction: the
  -- revision every instance reads before serving its cached inventory.
  CREATE TABLE inventory_revision (
    id       integer PRIMARY KEY CHECK (id = 1),
    revision bigint  NOT NULL
  );
  INSERT INTO inventory_revision (id, revision) VALUES (1, 0);
  `,
  // 2: Idempotency-Key records, per API key (a digest of it), kept 24 hours.
  `
  CREATE TABLE idempotency_keys (
    owner       text    NOT NULL,
    key         text    NOT NULL,
    fingerprint text    NOT NULL,
    created_at  bigint  NOT NULL,
    status      integer NOT NULL,
    body        text    NOT NULL,
    etag        text,
    PRIMARY KEY (owner, key)
  );

  CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
  `,
  // 3: SQLite's version 3 lays its idempotency records out again (appended, found through an
  // index in memory); here the primary key stays, since many instances share the table. The
  // number still moves, so both stores' versions keep meaning the same schema.
  `
  COMMENT ON TABLE idempotency_keys IS
    'Idempotency-Key records per API key digest, with the answer, kept 24 hours';
  `,
  // 4: the history of every quantity change; an entry's records by (pet_id, id), newest
  // last. Entries from before version 4 start with no history.
  `
  CREATE TABLE inventory_changes (
    id         bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pet_id     bigint  NOT NULL,
    at         bigint  NOT NULL,
    previous   integer,
    quantity   integer NOT NULL,
    key_name   text,
    request_id text,
    reason     text
  );

  CREATE INDEX inventory_changes_by_pet ON inventory_changes (pet_id, id);
  `,
  // 5: the instances holding a lease on their inventory cache (postgres-lease.ts). UNLOGGED:
  // leases are renewed every quarter second and mean nothing after a crash, so they are
  // never written to the WAL (a crash empties the table; every instance registers again).
  `
  CREATE UNLOGGED TABLE inventory_instances (
    id          text        PRIMARY KEY,
    lease_until timestamptz NOT NULL
  );
  `,
  // 6: the cache leases are gone (every GET reads the revision: fresh-read.ts), and so is
  // their table.
  `
  DROP TABLE IF EXISTS inventory_instances;
  `,
  // 7: a batch change's business reference, kept with its history record for good: a
  // (pet_id, ref) is applied once, ever, which the unique index both finds and guarantees.
  `
  ALTER TABLE inventory_changes ADD COLUMN ref text;

  CREATE UNIQUE INDEX inventory_changes_by_ref ON inventory_changes (pet_id, ref)
    WHERE ref IS NOT NULL;
  `,
  // 8: the change feed's order. Every history record gets a seq, increasing in the order the
  // changes committed: a writer takes its seqs from the revision row, whose lock it holds
  // until its commit, so no change can commit behind a seq already visible (write-batch.ts).
  // Existing records get theirs in the order they were written; the revision row then counts
  // seqs, starting past the last one.
  `
  ALTER TABLE inventory_changes ADD COLUMN seq bigint;
  UPDATE inventory_changes SET seq = id;
  ALTER TABLE inventory_changes ALTER COLUMN seq SET NOT NULL;
  CREATE UNIQUE INDEX inventory_changes_by_seq ON inventory_changes (seq);
  UPDATE inventory_revision
    SET revision = GREATEST(revision, (SELECT coalesce(max(seq), 0) FROM inventory_changes))
    WHERE id = 1;
  `,
  // 9: one concept, one name on both engines: the table is idempotency_records, as SQLite's
  // has been since its version 3 and as the code, `db copy` and `db backup` call its rows.
  `
  ALTER TABLE idempotency_keys RENAME TO idempotency_records;
  ALTER TABLE idempotency_records RENAME CONSTRAINT idempotency_keys_pkey TO idempotency_records_pkey;
  ALTER INDEX idempotency_keys_by_age RENAME TO idempotency_records_by_age;
  `,
  // 10: a count sums a pet's changes after a seq (write-batch.ts, since): by pet and seq, it
  // reads only those, not the pet's whole history. (SQLite walks the pet's chain back instead.)
  `
  CREATE INDEX inventory_changes_by_pet_seq ON inventory_changes (pet_id, seq);
  `,
  // 11: refs indexed by ref first. A batch's refs share a prefix (`count:<session>:`, a sales
  // file's), so by (ref, pet_id) its new entries sit together in a few pages; by (pet_id, ref)
  // each went to its pet's page, and a batch of 10,000 wrote most of the index.
  `
  DROP INDEX inventory_changes_by_ref;

  CREATE UNIQUE INDEX inventory_changes_by_ref ON inventory_changes (ref, pet_id)
    WHERE ref IS NOT NULL;
  `,
  // 12: a group commit's write, the plan's rows in arrays (write-batch.ts), as a function: a
  // statement sent unnamed is parsed and planned each time (no named prepared statement lives
  // through a transaction-mode pooler), and this one's planning cost a third of PATCH's
  // throughput; PL/pgSQL keeps the plan of its statement in each server session, whichever
  // client uses it. Keys and pets are locked already; the revision row, raised when anything
  // was written, last. History records are inserted in the batch's order, so their ids order
  // them. Returns the seq before the group's first change (null without changes).
  `
  CREATE FUNCTION petstore_write_planned(
    bigint[], integer[], text[], text[], text[], bigint[], integer[], text[], text[],
    bigint[], bigint[], integer[], integer[], text[], text[], text[], text[], text[], text[]
  ) RETURNS bigint LANGUAGE plpgsql AS $function$
  DECLARE
    first_seq bigint;
  BEGIN
    WITH answered AS (
        INSERT INTO idempotency_records (owner, key, fingerprint, created_at, status, body, etag)
          SELECT * FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::integer[], $8::text[], $9::text[])
        ON CONFLICT (owner, key) DO UPDATE SET fingerprint = excluded.fingerprint,
          created_at = excluded.created_at, status = excluded.status, body = excluded.body,
          etag = excluded.etag
      ), released AS (
        DELETE FROM idempotency_records
          WHERE (owner, key) IN (SELECT * FROM unnest($18::text[], $19::text[]))
      ), written AS (
        UPDATE pets SET quantity = planned.quantity
          FROM unnest($1::bigint[], $2::integer[]) AS planned (id, quantity)
          -- The ANY lets the primary key find the rows; a join alone was planned as a scan of
          -- every pet (20 ms for a batch of 1,000 among 100,000 pets, 6 ms this way).
          WHERE pets.id = planned.id AND pets.id = ANY ($1::bigint[])
          RETURNING 1
      ), revised AS (
        -- The feed's seqs, one per history record, from the revision row: its lock, taken last,
        -- is held until this transaction commits, so the next writer's seqs come after this
        -- commit and no change ever commits behind a seq a reader has seen (migration 8).
        UPDATE inventory_revision SET revision = revision + cardinality($10::bigint[])
          WHERE id = 1 AND cardinality($10::bigint[]) > 0
          RETURNING revision - cardinality($10::bigint[]) AS base
      )
      , recorded AS (
        INSERT INTO inventory_changes (pet_id, at, previous, quantity, key_name, request_id, reason, ref, seq)
          SELECT pet_id, at, previous, quantity, key_name, request_id, reason, ref, revised.base + ord
          FROM unnest($10::bigint[], $11::bigint[], $12::integer[], $13::integer[], $14::text[], $15::text[], $16::text[], $17::text[])
              WITH ORDINALITY AS change (pet_id, at, previous, quantity, key_name, request_id, reason, ref, ord),
            revised
          ORDER BY ord
      )
    SELECT (SELECT revised.base FROM revised) INTO first_seq;
    RETURN first_seq;
  END
  $function$;
  `,
  // 13: a kept answer keeps the seq it held as of, so that its replay says it (Inventory-Seq):
  // version 12's function with two more arguments, each answer's count of the group's changes
  // it reflects ($20) and the latest seq the transaction read ($21, an answer's seq when it
  // reflects none). Version 12's stays, for a server of that version still running in a
  // rolling upgrade (one restarted refuses the newer schema), as a call of this one with no
  // seq: a record it keeps, or takes over from an expired one, has none, and its replay says
  // none rather than a seq the answer does not hold as of.
  `
  ALTER TABLE idempotency_records ADD COLUMN seq bigint;

  CREATE FUNCTION petstore_write_planned(
    bigint[], integer[], text[], text[], text[], bigint[], integer[], text[], text[],
    bigint[], bigint[], integer[], integer[], text[], text[], text[], text[], text[], text[],
    integer[], bigint
  ) RETURNS bigint LANGUAGE plpgsql AS $function$
  DECLARE
    first_seq bigint;
  BEGIN
    WITH revised AS (
        -- The feed's seqs, one per history record, from the revision row: its lock, held until
        -- this transaction commits, makes the next writer's seqs come after this commit
        -- (migration 8). Keys and pets are locked already, so the order here takes no new lock
        -- but this one.
        UPDATE inventory_revision SET revision = revision + cardinality($10::bigint[])
          WHERE id = 1 AND cardinality($10::bigint[]) > 0
          RETURNING revision - cardinality($10::bigint[]) AS base
      ), answered AS (
        INSERT INTO idempotency_records (owner, key, fingerprint, created_at, status, body, etag, seq)
          SELECT owner, key, fingerprint, created_at, status, body, etag,
              CASE WHEN through > 0 THEN (SELECT revised.base FROM revised) + through ELSE $21 END
            FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::integer[], $8::text[], $9::text[], $20::integer[])
              AS answer (owner, key, fingerprint, created_at, status, body, etag, through)
        ON CONFLICT (owner, key) DO UPDATE SET fingerprint = excluded.fingerprint,
          created_at = excluded.created_at, status = excluded.status, body = excluded.body,
          etag = excluded.etag, seq = excluded.seq
      ), released AS (
        DELETE FROM idempotency_records
          WHERE (owner, key) IN (SELECT * FROM unnest($18::text[], $19::text[]))
      ), written AS (
        UPDATE pets SET quantity = planned.quantity
          FROM unnest($1::bigint[], $2::integer[]) AS planned (id, quantity)
          -- The ANY lets the primary key find the rows (version 12).
          WHERE pets.id = planned.id AND pets.id = ANY ($1::bigint[])
          RETURNING 1
      ), recorded AS (
        INSERT INTO inventory_changes (pet_id, at, previous, quantity, key_name, request_id, reason, ref, seq)
          SELECT pet_id, at, previous, quantity, key_name, request_id, reason, ref, revised.base + ord
          FROM unnest($10::bigint[], $11::bigint[], $12::integer[], $13::integer[], $14::text[], $15::text[], $16::text[], $17::text[])
              WITH ORDINALITY AS change (pet_id, at, previous, quantity, key_name, request_id, reason, ref, ord),
            revised
          ORDER BY ord
      )
    SELECT (SELECT revised.base FROM revised) INTO first_seq;
    RETURN first_seq;
  END
  $function$;

  CREATE OR REPLACE FUNCTION petstore_write_planned(
    bigint[], integer[], text[], text[], text[], bigint[], integer[], text[], text[],
    bigint[], bigint[], integer[], integer[], text[], text[], text[], text[], text[], text[]
  ) RETURNS bigint LANGUAGE sql AS $function$
    SELECT petstore_write_planned($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
      $15, $16, $17, $18, $19, array_fill(0, ARRAY[cardinality($3)]), NULL::bigint)
  $function$;
  `,
  // 14: refs compare byte by byte (collation "C", as SQLite's do), whatever the database's
  // default. Every ref starting with a prefix then sorts together, right from the prefix, so
  // one step into the (ref, pet_id) index tells whether any does (write-batch.ts, findRefs);
  // under a language's collation, which weighs case after letters, they need not (ICU's en-US
  // puts "till-A1" between "till-a" and "till-a2"). Refs are visible ASCII and text equality
  // is byte equality under any deterministic collation, so no ref changes and the unique index
  // keeps meaning the same. The table is not rewritten, but its index on ref is rebuilt under
  // the table's exclusive lock: reads and writes of history wait meanwhile (as for version
  // 11; docs/operating.md gives the time). The change drops the column's statistics, which
  // ANALYZE makes again at once rather than at the next autovacuum.
  `
  ALTER TABLE inventory_changes ALTER COLUMN ref TYPE text COLLATE "C";

  ANALYZE inventory_changes (ref);
  `,
];

/**
 * Brings the database to the latest schema in one transaction, under an advisory lock, so
 * instances started together migrate it once; refuses a schema newer than this code knows.
 */
export async function migrate(pool: pg.Pool, lockTimeoutMs: number): Promise<void> {
  const { client, release } = await checkOut(pool);
  let failed: unknown;
  try {
    await beginTransaction(client, lockTimeoutMs);
    await migrateInTransaction(client);
    await client.query("COMMIT");
  } catch (error) {
    failed = error;
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    release(failed instanceof Error && isUnreachable(failed) ? failed : undefined);
  }
}

/**
 * The migration itself, inside the caller's open transaction (`db copy` creates the schema
 * and fills it in one): the advisory lock is held until that transaction ends.
 */
export async function migrateInTransaction(client: pg.ClientBase): Promise<void> {
  // Instances started together wait for the one migrating however long its migration takes
  // (rebuilding an index on a large store takes seconds).
  await waitForAdvisoryLock(client, MIGRATION_LOCK);
  await client.query("CREATE TABLE IF NOT EXISTS petstore_schema (version integer NOT NULL)");
  const rows = (await client.query<{ version: number }>("SELECT version FROM petstore_schema"))
    .rows;
  const current = rows[0]?.version ?? 0;
  refuseNewerSchema(current, POSTGRES_MIGRATIONS.length);
  if (rows.length === 0) await client.query("INSERT INTO petstore_schema (version) VALUES (0)");
  for (let version = current; version < POSTGRES_MIGRATIONS.length; version++) {
    await client.query(POSTGRES_MIGRATIONS[version] ?? "");
  }
  await client.query("UPDATE petstore_schema SET version = $1", [POSTGRES_MIGRATIONS.length]);
}
