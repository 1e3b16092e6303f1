/**
 * What `db copy` moves, table by table: how a page of rows is read from the SQLite store
 * (../sqlite/migrations.ts) and how it is inserted into the PostgreSQL one
 * (../postgres/migrations.ts), as one INSERT of unnest() arrays per page. Integers are read as
 * BigInt (better-sqlite3's safe integers) and sent as decimal text, so int64 ids stay exact.
 * The rows are ../rows.ts's, which the stores read.
 */
import type { ChangeRow, IdempotencyRow, InventoryRow, OrderRow, PetRow } from "../rows.js";

/** Every row is paged by its integer primary key (its rowid). */
export interface SourceRow {
  id: bigint;
}

/** One table's way from SQLite to PostgreSQL. */
export interface CopiedTable<Row extends SourceRow = SourceRow> {
  /** As the report names it. */
  label: string;
  /** The SQLite table (its count is compared with the PostgreSQL table's). */
  source: string;
  /** The PostgreSQL table. */
  target: string;
  /** SQLite: the rows with an id above `?`, in id order, at most `?` of them. */
  select: string;
  /** The same, for a file older than `version`, which lacks columns `select` reads. */
  selectBefore?: { version: number; select: string };
  /** Rows per page: one INSERT each. */
  pageSize: number;
  /** PostgreSQL: one page's rows, from the arrays `values` gives. */
  insert: string;
  // A method, so that a table of any row type is a CopiedTable (methods are bivariant).
  values(rows: readonly Row[]): unknown[];
}

/** A pet with its stock, as the copy moves it. */
type CopiedPet = PetRow & Pick<InventoryRow, "quantity">;

/** A history record: its id is its seq (below). */
type CopiedChange = SourceRow & Omit<ChangeRow, "seq">;

const pets: CopiedTable<CopiedPet> = {
  label: "pets",
  source: "pets",
  target: "pets",
  // last_change is SQLite's own chain of an entry's history; PostgreSQL finds it by index.
  select: `SELECT id, name, status, quantity, category_id, category_name, photo_urls, tags
    FROM pets WHERE id > ? ORDER BY id LIMIT ?`,
  pageSize: 5_000,
  insert: `INSERT INTO pets (id, name, status, quantity, category_id, category_name, photo_urls, tags)
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::integer[], $5::bigint[],
      $6::text[], $7::text[], $8::text[])`,
  values: (rows) => [
    rows.map((row) => row.id),
    rows.map((row) => row.name),
    rows.map((row) => row.status),
    rows.map((row) => row.quantity),
    rows.map((row) => row.category_id),
    rows.map((row) => row.category_name),
    rows.map((row) => row.photo_urls),
    rows.map((row) => row.tags),
  ],
};

const orders: CopiedTable<OrderRow> = {
  label: "orders",
  source: "orders",
  target: "orders",
  select: `SELECT id, pet_id, quantity, ship_date, status, complete
    FROM orders WHERE id > ? ORDER BY id LIMIT ?`,
  pageSize: 5_000,
  insert: `INSERT INTO orders (id, pet_id, quantity, ship_date, status, complete)
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::integer[], $4::text[], $5::text[],
      $6::boolean[])`,
  values: (rows) => [
    rows.map((row) => row.id),
    rows.map((row) => row.pet_id),
    rows.map((row) => row.quantity),
    rows.map((row) => row.ship_date),
    rows.map((row) => row.status),
    rows.map((row) => row.complete === 1n),
  ],
};

/**
 * A SQLite record's id is its seq (SQLite's migration 8): it becomes both the PostgreSQL
 * record's id (which orders an entry's history) and its seq (the feed's order), so a feed
 * cursor taken on the SQLite store means the same on PostgreSQL.
 */
const history: CopiedTable<CopiedChange> = {
  label: "history records",
  source: "inventory_changes",
  target: "inventory_changes",
  // earlier_change is SQLite's chain of an entry's records; PostgreSQL finds them by index.
  select: `SELECT id, pet_id, at, previous, quantity, key_name, request_id, reason, ref
    FROM inventory_changes WHERE id > ? ORDER BY id LIMIT ?`,
  pageSize: 5_000,
  insert: `INSERT INTO inventory_changes
      (id, seq, pet_id, at, previous, quantity, key_name, request_id, reason, ref)
    OVERRIDING SYSTEM VALUE
    SELECT id, id, pet_id, at, previous, quantity, key_name, request_id, reason, ref
    FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::integer[], $5::integer[],
      $6::text[], $7::text[], $8::text[], $9::text[])
      AS change (id, pet_id, at, previous, quantity, key_name, request_id, reason, ref)`,
  values: (rows) => [
    rows.map((row) => row.id),
    rows.map((row) => row.pet_id),
    rows.map((row) => row.at),
    rows.map((row) => row.previous),
    rows.map((row) => row.quantity),
    rows.map((row) => row.key_name),
    rows.map((row) => row.request_id),
    rows.map((row) => row.reason),
    rows.map((row) => row.ref),
  ],
};

/**
 * Every record is copied, expired ones too (a server's purge deletes them): a record's
 * `created_at` is its expiry's start, so a replay on PostgreSQL expires when it would have.
 */
const idempotency: CopiedTable<IdempotencyRow & SourceRow> = {
  label: "idempotency records",
  source: "idempotency_records",
  target: "idempotency_records",
  select: `SELECT id, owner, key, fingerprint, created_at, status, body, etag, seq
    FROM idempotency_records WHERE id > ? ORDER BY id LIMIT ?`,
  // Before version 13 a record kept no seq; its replay says none, on PostgreSQL too.
  selectBefore: {
    version: 13,
    select: `SELECT id, owner, key, fingerprint, created_at, status, body, etag, NULL AS seq
      FROM idempotency_records WHERE id > ? ORDER BY id LIMIT ?`,
  },
  // A record keeps its whole answer, a batch's up to a few MB: fewer per page.
  pageSize: 500,
  insert: `INSERT INTO idempotency_records (owner, key, fingerprint, created_at, status, body, etag, seq)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::integer[],
      $6::text[], $7::text[], $8::bigint[])`,
  values: (rows) => [
    rows.map((row) => row.owner),
    rows.map((row) => row.key),
    rows.map((row) => row.fingerprint),
    rows.map((row) => row.created_at),
    rows.map((row) => row.status),
    rows.map((row) => row.body),
    rows.map((row) => row.etag),
    rows.map((row) => row.seq),
  ],
};

/** In the order they are copied: pets before the orders that refer to them. */
export const COPIED_TABLES: readonly CopiedTable[] = [pets, orders, history, idempotency];
