/**
 * Versioned schema migrations of the SQLite store. Each entry moves the schema
 * one version up; `PRAGMA user_version` records how many have been applied.
 * Never edit a migration that has shipped: append a new one.
 */
import type Database from "better-sqlite3";
import { refuseNewerSchema } from "../store.js";

export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE pets (
    id            INTEGER PRIMARY KEY CHECK (id > 0),
    name          TEXT    NOT NULL,
    status        TEXT    NOT NULL CHECK (status IN ('available', 'pending', 'sold')),
    quantity      INTEGER NOT NULL DEFAULT 0 CHECK (quantity BETWEEN 0 AND 2147483647),
    category_id   INTEGER,
    category_name TEXT,
    photo_urls    TEXT    NOT NULL DEFAULT '[]',
    tags          TEXT    NOT NULL DEFAULT '[]'
  ) STRICT;

  CREATE TABLE orders (
    id        INTEGER PRIMARY KEY CHECK (id > 0),
    pet_id    INTEGER NOT NULL REFERENCES pets (id),
    quantity  INTEGER NOT NULL CHECK (quantity > 0),
    ship_date TEXT    NOT NULL,
    status    TEXT    NOT NULL CHECK (status IN ('placed', 'approved', 'delivered')),
    complete  INTEGER NOT NULL CHECK (complete IN (0, 1))
  ) STRICT;
  `,
  // 2: Idempotency-Key records, per API key (a digest of it), kept 24 hours.
  `
  CREATE TABLE idempotency_keys (
    owner       TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    status      INTEGER NOT NULL,
    body        TEXT    NOT NULL,
    etag        TEXT,
    UNIQUE (owner, key)
  ) STRICT;

  CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
  `,
  // 3: the records in append order, without the UNIQUE (owner, key) index: each random key
  // made every commit write a random page of that index (idempotency-index.ts finds keys now).
  // `id` only grows: the purge always keeps the newest record (see sqlite.ts).
  `
  CREATE TABLE idempotency_records (
    id          INTEGER PRIMARY KEY,
    owner       TEXT    NOT NULL,
    key         TEXT    NOT NULL,
    fingerprint TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    status      INTEGER NOT NULL,
    body        TEXT    NOT NULL,
    etag        TEXT
  ) STRICT;

  INSERT INTO idempotency_records (owner, key, fingerprint, created_at, status, body, etag)
    SELECT owner, key, fingerprint, created_at, status, body, etag
    FROM idempotency_keys ORDER BY created_at;

  DROP TABLE idempotency_keys;

  CREATE INDEX idempotency_records_by_age ON idempotency_records (created_at);
  `,
  // 4: the history of every quantity change. Each entry points at its newest change
  // (pets.last_change) and each change at the one before it (earlier_change), so a write
  // appends to the table's last page and touches no index, and an entry's history is a walk
  // down its chain. Entries from before version 4 start with no history.
  `
  ALTER TABLE pets ADD COLUMN last_change INTEGER;

  CREATE TABLE inventory_changes (
    id             INTEGER PRIMARY KEY,
    pet_id         INTEGER NOT NULL,
    earlier_change INTEGER,
    at             INTEGER NOT NULL,
    previous       INTEGER,
    quantity       INTEGER NOT NULL,
    key_name       TEXT,
    request_id     TEXT,
    reason         TEXT
  ) STRICT;
  `,
  // 5: PostgreSQL's version 5 adds the instances' cache leases, which a SQLite file (one
  // machine, data_version) has no use for. The number moves all the same, so both stores'
  // versions keep meaning the same schema.
  `
  SELECT 1;
  `,
  // 6: keys are found through an index of the table again, not one kept in memory (which grew
  // with every key for the 24 hours it lives). Only a key's newest record ever counted.
  `
  DELETE FROM idempotency_records
    WHERE id NOT IN (SELECT max(id) FROM idempotency_records GROUP BY owner, key);

  CREATE UNIQUE INDEX idempotency_records_by_key ON idempotency_records (owner, key);
  `,
  // 7: a batch change's business reference, kept with its history record for good: a
  // (pet_id, ref) is applied once, ever, which the unique index both finds and guarantees.
  `
  ALTER TABLE inventory_changes ADD COLUMN ref TEXT;

  CREATE UNIQUE INDEX inventory_changes_by_ref ON inventory_changes (pet_id, ref)
    WHERE ref IS NOT NULL;
  `,
  // 8: the change feed's order (PostgreSQL's version 8 adds a seq column). Here a record's id
  // is its seq already: one writer at a time holds the file's write lock, and an INTEGER
  // PRIMARY KEY takes the largest id plus one, so ids increase in commit order, and history
  // records are never deleted. The number moves all the same.
  `
  SELECT 1;
  `,
  // 9: PostgreSQL's version 9 renames its idempotency_keys to idempotency_records, this
  // file's name for the table since version 3. The number moves all the same.
  `
  SELECT 1;
  `,
  // 10: PostgreSQL's version 10 indexes its changes by pet and seq for a count's sum of what
  // moved since; here a count walks the pet's chain back (earlier_change), which needs none.
  `
  SELECT 1;
  `,
  // 11: refs indexed by ref first. A batch's refs share a prefix (`count:<session>:`, a sales
  // file's), so by (ref, pet_id) its new entries sit together in a few pages; by (pet_id, ref)
  // each went to its pet's page, and a batch of 10,000 wrote most of the index.
  `
  DROP INDEX inventory_changes_by_ref;

  CREATE UNIQUE INDEX inventory_changes_by_ref ON inventory_changes (ref, pet_id)
    WHERE ref IS NOT NULL;
  `,
  // 12: PostgreSQL's version 12 makes its group commit's write a function (its plan kept per
  // session); SQLite's statements are prepared once per connection already. The number moves
  // all the same.
  `
  SELECT 1;
  `,
  // 13: a kept answer keeps the seq it held as of, so that its replay says it (Inventory-Seq);
  // a record kept before has none, and its replay says none.
  `
  ALTER TABLE idempotency_records ADD COLUMN seq INTEGER;
  `,
  // 14: PostgreSQL's version 14 compares refs byte by byte (collation "C"), as SQLite's
  // BINARY collation always has. The number moves all the same.
  `
  SELECT 1;
  `,
];

/**
 * Brings `db` to the latest schema, one transaction per version; refuses a file whose schema
 * is newer than this code knows. `pragma` runs a PRAGMA and gives its value.
 */
export function migrate(db: Database.Database, pragma: (source: string) => unknown): void {
  const current = Number(pragma("user_version"));
  refuseNewerSchema(current, MIGRATIONS.length);
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version] ?? "");
      pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}
