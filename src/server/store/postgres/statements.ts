/**
 * The SQL of the PostgreSQL store but its group commit's (write-batch.ts): reads of entries,
 * pets, orders, history and the revision; the purge; the seed.
 */
import type pg from "pg";

/**
 * The statements, sent unnamed (parsed with each run): a named one would live in one server
 * session, which a pooler in transaction mode does not keep for us (connection.ts).
 */
export const SQL = {
  // The entries with the revision (the latest seq), in one statement: one snapshot. A writer
  // raises the revision in the transaction that writes its changes, so a snapshot holds every
  // change up to it and none after. Without pets, one row with the revision alone.
  list: `SELECT r.revision, p.id, p.quantity, p.status
    FROM inventory_revision r LEFT JOIN pets p ON true WHERE r.id = 1 ORDER BY p.id`,
  item: `SELECT r.revision, p.id, p.quantity, p.status
    FROM pets p CROSS JOIN inventory_revision r WHERE p.id = $1 AND r.id = 1`,
  revision: "SELECT revision FROM inventory_revision WHERE id = 1",
  purgeKeys: `DELETE FROM idempotency_records WHERE (owner, key) IN
    (SELECT owner, key FROM idempotency_records WHERE created_at < $1 ORDER BY created_at LIMIT $2
     FOR UPDATE SKIP LOCKED)`,
  pet: "SELECT id, name, status, category_id, category_name, photo_urls, tags FROM pets WHERE id = $1",
  orders: "SELECT id, pet_id, quantity, ship_date, status, complete FROM orders ORDER BY id",
  count: "SELECT count(*) AS n FROM pets",
  // An entry's latest records, newest first; no row at all when no pet has this id, one row
  // of nulls when it has no record.
  changes: `SELECT c.seq, c.pet_id, c.at, c.previous, c.quantity, c.key_name, c.request_id, c.reason, c.ref
    FROM pets p LEFT JOIN LATERAL (
      SELECT * FROM inventory_changes WHERE pet_id = p.id ORDER BY id DESC LIMIT $2
    ) c ON true
    WHERE p.id = $1
    ORDER BY c.id DESC`,
  // The seed's history records take their seqs from the revision row, as every write's do.
  seedChanges: `WITH revised AS (
      UPDATE inventory_revision SET revision = revision + cardinality($1::bigint[])
        WHERE id = 1
        RETURNING revision - cardinality($1::bigint[]) AS base
    )
    INSERT INTO inventory_changes (pet_id, at, previous, quantity, key_name, request_id, reason, seq)
      SELECT pet_id, $3, NULL, quantity, NULL, NULL, $4, revised.base + ord
      FROM unnest($1::bigint[], $2::integer[]) WITH ORDINALITY AS seeded (pet_id, quantity, ord),
        revised`,
  feed: `SELECT seq, pet_id, at, previous, quantity, key_name, request_id, reason, ref
    FROM inventory_changes WHERE seq > $1 ORDER BY seq LIMIT $2`,
  insertPet: `INSERT INTO pets (id, name, status, quantity, category_id, category_name, photo_urls, tags)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  insertOrder:
    "INSERT INTO orders (id, pet_id, quantity, ship_date, status, complete) VALUES ($1, $2, $3, $4, $5, $6)",
} as const;

export type StatementName = keyof typeof SQL;

/** Runs one of the statements on a client or the pool. */
export function run<R extends pg.QueryResultRow>(
  on: pg.Pool | pg.PoolClient,
  name: StatementName,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  return on.query<R>({ text: SQL[name], values });
}
