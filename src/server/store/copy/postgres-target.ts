/**
 * The PostgreSQL database `db copy` fills, inside the one transaction of the copy: the schema
 * created (or brought up to date) by the store's own migrations, the tables locked, refused
 * unless empty, and once filled, the counters every writer takes its numbers from moved past
 * the copied rows.
 */
import pg from "pg";
import { migrateInTransaction } from "../postgres/migrations.js";
import { OperatorError } from "../../../api/operator-error.js";

/** The tables whose rows make a store not empty: pets, orders, history, idempotency records. */
export const STORE_TABLES = ["pets", "orders", "inventory_changes", "idempotency_records"] as const;

/** What the target holds: rows per table, and the sum of every entry's quantity. */
export interface TargetCounts {
  rows: ReadonlyMap<string, bigint>;
  units: bigint;
}

/** Counts the rows of those of `tables` that exist (tables that do not are empty). */
async function countRows(client: pg.ClientBase, tables: readonly string[]) {
  const existing = (
    await client.query<{ name: string }>(
      "SELECT name FROM unnest($1::text[]) AS t (name) WHERE to_regclass(name) IS NOT NULL",
      [tables],
    )
  ).rows.map((row) => row.name);
  const rows = new Map<string, bigint>(tables.map((table) => [table, 0n]));
  if (existing.length > 0) {
    // Names from STORE_TABLES only, never from input.
    const counts = existing.map((table) => `(SELECT count(*) FROM ${table}) AS ${table}`);
    const [row] = (await client.query<Record<string, bigint>>(`SELECT ${counts.join(", ")}`)).rows;
    for (const table of existing) rows.set(table, row?.[table] ?? 0n);
  }
  return rows;
}

/** Refuses a target holding any pet, order, history or idempotency record. */
async function refuseUnlessEmpty(client: pg.ClientBase, where: string): Promise<void> {
  const rows = await countRows(client, STORE_TABLES);
  const held = [...rows.values()].some((count) => count > 0n);
  if (!held) return;
  const n = (table: string, noun: string) => {
    const count = rows.get(table) ?? 0n;
    return `${count} ${noun}${count === 1n ? "" : "s"}`;
  };
  throw new OperatorError(
    "configuration",
    `${where} is not empty: it holds ${n("pets", "pet")}, ${n("orders", "order")}, ` +
      `${n("inventory_changes", "history record")} and ` +
      `${n("idempotency_records", "idempotency record")}; db copy fills an empty database only, ` +
      "and left this one as it was",
    "point PETSTORE_DATABASE_URL at a new database (createdb, or CREATE DATABASE)",
  );
}

/**
 * Inside the copy's open transaction: refuses a target that is not empty before changing
 * anything, creates or upgrades the schema (migrations.ts, under its advisory lock), locks the
 * store's tables against every other session until the commit, and checks again: a server
 * that wrote between the first look and the lock is seen. ACCESS EXCLUSIVE also holds off
 * readers, so no instance serves (or seeds into) a half-copied store.
 */
export async function prepareTarget(client: pg.ClientBase, where: string): Promise<void> {
  await refuseUnlessEmpty(client, where);
  try {
    await migrateInTransaction(client);
  } catch (error) {
    // Not PostgreSQL's: the migrations refusing a schema newer than this petstore knows.
    if (error instanceof pg.DatabaseError || !(error instanceof Error)) throw error;
    throw new OperatorError(
      "configuration",
      `cannot use ${where}: ${error.message}`,
      "run db copy with the petstore version that created that database, or use a new one",
    );
  }
  await client.query(
    `LOCK TABLE ${[...STORE_TABLES, "inventory_revision"].join(", ")} IN ACCESS EXCLUSIVE MODE`,
  );
  await refuseUnlessEmpty(client, where);
}

/**
 * Moves the numbers writers take past the copied rows: the revision row, from which the next
 * history record's seq is taken (revision + 1), and the identity of history record ids.
 * The revision also moves when the copy has no history (a store from before history), so an
 * instance that cached the empty inventory sees that it changed.
 */
export async function advanceCounters(client: pg.ClientBase, lastSeq: bigint): Promise<void> {
  await client.query(
    "UPDATE inventory_revision SET revision = GREATEST(revision + 1, $1::bigint) WHERE id = 1",
    [lastSeq],
  );
  // ALTER (unlike setval) is transactional: a rolled-back copy leaves the identity as it was.
  if (lastSeq > 0n) {
    await client.query(
      `ALTER TABLE inventory_changes ALTER COLUMN id RESTART WITH ${String(lastSeq + 1n)}`,
    );
  }
}

/** What the target holds now, as this transaction sees it. */
export async function countTarget(client: pg.ClientBase): Promise<TargetCounts> {
  const rows = await countRows(client, STORE_TABLES);
  const [sum] = (
    await client.query<{ units: bigint }>("SELECT coalesce(sum(quantity), 0) AS units FROM pets")
  ).rows;
  return { rows, units: sum?.units ?? 0n };
}
