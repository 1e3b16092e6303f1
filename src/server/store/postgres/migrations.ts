/**
 * Versioned schema migrations of the PostgreSQL store, numbered as the SQLite store's
 * (`../sqlite/migrations.ts`): version N holds what SQLite's version N holds. The table
 * `petstore_schema` records the version. Never edit a migration that has shipped: append one.
 */
import type pg from "pg";
import { refuseNewerSchema } from "../store.js";
import { beginTransaction, checkOut, isUnreachable } from "./connection.js";

/** The key of the advisory lock that serializes migrations of instances started together. */
const MIGRATION_LOCK = "7310593858348875621";

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
  await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
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
