/**
 * The SQL of the SQLite store, prepared once per connection (connection.ts says why they are
 * kept): reads of entries, pets, orders and history; the group commit's reads and writes.
 */
import type Database from "better-sqlite3";
import type { ChangeColumns, IdempotencyRow, InventoryRow, OrderRow, PetRow } from "../rows.js";

/** An entry as a write reads it: with its newest history record's id. */
export interface CurrentRow extends InventoryRow {
  last_change: bigint | null;
}

/** A key's record as a write reads it. */
type RecordRow = Omit<IdempotencyRow, "owner" | "key">;

/** Every statement the store runs. */
export interface SqliteStatements {
  list: Database.Statement<[], InventoryRow>;
  item: Database.Statement<[bigint], InventoryRow>;
  current: Database.Statement<[bigint], CurrentRow>;
  update: Database.Statement<[bigint, bigint | null, bigint]>;
  addChange: Database.Statement<
    [
      bigint,
      bigint | null,
      bigint,
      bigint | null,
      bigint,
      string | null,
      string | null,
      string | null,
      string | null,
    ]
  >;
  findRefs: Database.Statement<[string], { pet_id: bigint; ref: string }>;
  firstRefFrom: Database.Statement<[string], string>;
  /** Read raw: each row an array of its columns (rows.ts ChangeColumns). */
  changes: Database.Statement<[bigint, bigint], ChangeColumns>;
  /** Read raw: each row an array of its columns (rows.ts ChangeColumns). */
  feed: Database.Statement<[bigint, bigint], ChangeColumns>;
  exists: Database.Statement<[bigint], bigint>;
  record: Database.Statement<[string, string], RecordRow>;
  keepRecord: Database.Statement<
    [string, string, string, bigint, bigint, string, string | null, bigint]
  >;
  purgeRecords: Database.Statement<[bigint, bigint]>;
  pet: Database.Statement<[bigint], PetRow>;
  orders: Database.Statement<[], OrderRow>;
  count: Database.Statement<[], { n: bigint }>;
  latestSeq: Database.Statement<[], bigint>;
  since: Database.Statement<[{ pet: bigint; asOf: bigint }], bigint>;
  dataVersion: Database.Statement<[], bigint>;
  insertPet: Database.Statement<
    [bigint, string, string, bigint, bigint | null, string | null, string, string, bigint]
  >;
  insertOrder: Database.Statement<[bigint, bigint, bigint, string, string, bigint]>;
}

/** Prepares the store's statements on `db`. */
export function prepareStatements(db: Database.Database): SqliteStatements {
  return {
    list: db.prepare("SELECT id, quantity, status FROM pets ORDER BY id"),
    item: db.prepare("SELECT id, quantity, status FROM pets WHERE id = ?"),
    current: db.prepare("SELECT id, quantity, status, last_change FROM pets WHERE id = ?"),
    update: db.prepare("UPDATE pets SET quantity = ?, last_change = ? WHERE id = ?"),
    addChange: db.prepare(
      `INSERT INTO inventory_changes
         (pet_id, earlier_change, at, previous, quantity, key_name, request_id, reason, ref)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // Which of a JSON array of [petId, ref] pairs (petIds as strings: they may pass 2^53) are
    // applied already: one statement for a batch's refs, each found by the unique index.
    findRefs: db.prepare(
      `SELECT c.pet_id, c.ref
       FROM json_each(?) AS wanted
         CROSS JOIN inventory_changes c
           ON c.ref = wanted.value ->> 1 AND c.pet_id = CAST(wanted.value ->> 0 AS INTEGER)
       WHERE c.ref IS NOT NULL`,
    ),
    // The least stored ref not below a prefix: every ref starting with the prefix sorts
    // together, right from it, so this one starts with it exactly when any does. One step
    // into the refs' index (`ref >= ?` holds only where ref is not null).
    firstRefFrom: db
      .prepare<[string], string>(
        "SELECT ref FROM inventory_changes WHERE ref >= ? ORDER BY ref LIMIT 1",
      )
      .pluck(),
    // The entry's chain, newest first: its last change, then each change's earlier one.
    changes: db
      .prepare<[bigint, bigint], ChangeColumns>(
        `WITH RECURSIVE chain (depth, id) AS (
           SELECT 1, last_change FROM pets WHERE id = ? AND last_change IS NOT NULL
           UNION ALL
           SELECT chain.depth + 1, c.earlier_change
           FROM chain JOIN inventory_changes c ON c.id = chain.id
           WHERE c.earlier_change IS NOT NULL AND chain.depth < ?
         )
         SELECT c.id AS seq, c.pet_id, c.at, c.previous, c.quantity, c.key_name, c.request_id, c.reason, c.ref
         FROM chain JOIN inventory_changes c ON c.id = chain.id
         ORDER BY chain.depth`,
      )
      .raw(),
    feed: db
      .prepare<[bigint, bigint], ChangeColumns>(
        `SELECT id AS seq, pet_id, at, previous, quantity, key_name, request_id, reason, ref
         FROM inventory_changes WHERE id > ? ORDER BY id LIMIT ?`,
      )
      .raw(),
    exists: db.prepare<[bigint], bigint>("SELECT 1 FROM pets WHERE id = ?").pluck(),
    record: db.prepare(
      `SELECT fingerprint, created_at, status, body, etag, seq FROM idempotency_records
       WHERE owner = ? AND key = ?`,
    ),
    // A key's expired record, not yet purged, gives way to the new one.
    keepRecord: db.prepare(
      `INSERT INTO idempotency_records (owner, key, fingerprint, created_at, status, body, etag, seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (owner, key) DO UPDATE SET fingerprint = excluded.fingerprint,
         created_at = excluded.created_at, status = excluded.status, body = excluded.body,
         etag = excluded.etag, seq = excluded.seq`,
    ),
    purgeRecords: db.prepare(
      `DELETE FROM idempotency_records WHERE id IN
         (SELECT id FROM idempotency_records WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
    ),
    pet: db.prepare(
      "SELECT id, name, status, category_id, category_name, photo_urls, tags FROM pets WHERE id = ?",
    ),
    orders: db.prepare(
      "SELECT id, pet_id, quantity, ship_date, status, complete FROM orders ORDER BY id",
    ),
    count: db.prepare("SELECT count(*) AS n FROM pets"),
    // The feed's seq is the history record's id: the last one is the latest change.
    latestSeq: db.prepare<[], bigint>("SELECT coalesce(max(id), 0) FROM inventory_changes").pluck(),
    // The net of a pet's changes after a seq (a seed's `previous` null counts as 0): its chain
    // walked back from its last change, as far as that seq, so a count costs what moved since,
    // not the pet's whole history nor the table's. Each step carries its record's net, and
    // CROSS JOIN keeps the walk the outer loop: summed by a join of the chain with the table,
    // SQLite scanned every record after the seq for each count (10,000 counts as of a morning
    // seq, posted after a day of sales, read the day's records 10,000 times).
    since: db
      .prepare<[{ pet: bigint; asOf: bigint }], bigint>(
        `WITH RECURSIVE chain(earlier, net) AS (
           SELECT c.earlier_change, c.quantity - coalesce(c.previous, 0)
             FROM pets p CROSS JOIN inventory_changes c ON c.id = p.last_change
             WHERE p.id = @pet AND c.id > @asOf
           UNION ALL
           SELECT c.earlier_change, c.quantity - coalesce(c.previous, 0)
             FROM chain CROSS JOIN inventory_changes c ON c.id = chain.earlier
             WHERE c.id > @asOf
         )
         SELECT coalesce(sum(net), 0) FROM chain`,
      )
      .pluck(),
    dataVersion: db.prepare<[], bigint>("PRAGMA data_version").pluck(),
    insertPet: db.prepare(
      `INSERT INTO pets
         (id, name, status, quantity, category_id, category_name, photo_urls, tags, last_change)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertOrder: db.prepare(
      "INSERT INTO orders (id, pet_id, quantity, ship_date, status, complete) VALUES (?, ?, ?, ?, ?, ?)",
    ),
  };
}
