/**
 * The rows both stores read and `db copy` moves, written once, and the values they hold.
 * Column names are the tables' own (the same on both engines). An integer column is a BigInt
 * where the engine gives one (SQLite's safe integers, PostgreSQL's int8) and a number where
 * PostgreSQL gives an int4: `Stored` says either, and the mappers read both.
 * Pets keep `photo_urls` and `tags` as JSON text, tag ids as decimal strings so int64 ids
 * stay exact, the category as two nullable columns.
 */
import type { InventoryItem, Order, OrderStatus, Pet, PetStatus, Tag } from "../../api/types.js";
import type { FeedRecord } from "./store.js";
import type { KeyRecord } from "./write-plan.js";

/** An integer column as an engine reads it. */
export type StoredInt = number | bigint;

/** A `pets` row's stock columns. */
export interface InventoryRow {
  id: bigint;
  quantity: StoredInt;
  status: PetStatus;
}

/** The InventoryItem a row holds. */
export const toItem = (row: InventoryRow): InventoryItem => ({
  petId: row.id,
  quantity: Number(row.quantity),
  status: row.status,
});

/** A `pets` row as `getPet` reads it. */
export interface PetRow {
  id: bigint;
  name: string;
  status: PetStatus;
  category_id: bigint | null;
  category_name: string | null;
  photo_urls: string;
  tags: string;
}

interface StoredTag {
  id: string;
  name: string;
}

/** The JSON texts a pet's `photo_urls` and `tags` columns hold. */
export function storedLists(pet: Pet): { photoUrls: string; tags: string } {
  const tags: StoredTag[] = pet.tags.map((tag) => ({ id: String(tag.id), name: tag.name }));
  return { photoUrls: JSON.stringify(pet.photoUrls), tags: JSON.stringify(tags) };
}

/** The Pet a row holds. */
export function toPet(row: PetRow): Pet {
  const tags = (JSON.parse(row.tags) as StoredTag[]).map((tag): Tag => ({
    id: BigInt(tag.id),
    name: tag.name,
  }));
  const pet: Pet = {
    id: row.id,
    name: row.name,
    status: row.status,
    photoUrls: JSON.parse(row.photo_urls) as string[],
    tags,
  };
  if (row.category_id !== null && row.category_name !== null) {
    pet.category = { id: row.category_id, name: row.category_name };
  }
  return pet;
}

/** An `orders` row; `complete` is 0 or 1 on SQLite, a boolean on PostgreSQL. */
export interface OrderRow {
  id: bigint;
  pet_id: bigint;
  quantity: StoredInt;
  ship_date: string;
  status: OrderStatus;
  complete: StoredInt | boolean;
}

/** The Order a row holds. */
export const toOrder = (row: OrderRow): Order => ({
  id: row.id,
  petId: row.pet_id,
  quantity: Number(row.quantity),
  shipDate: row.ship_date,
  status: row.status,
  complete: row.complete === true || row.complete === 1n || row.complete === 1,
});

/** An `inventory_changes` row as the history and the feed read it. */
export interface ChangeRow {
  /** The record's feed position: SQLite's id, PostgreSQL's seq column (migration 8). */
  seq: bigint;
  pet_id: bigint;
  at: StoredInt;
  previous: StoredInt | null;
  quantity: StoredInt;
  key_name: string | null;
  request_id: string | null;
  reason: string | null;
  ref: string | null;
}

/** The FeedRecord a row holds. */
export const toFeedRecord = (row: ChangeRow): FeedRecord => ({
  seq: row.seq,
  petId: row.pet_id,
  at: Number(row.at),
  previous: row.previous === null ? null : Number(row.previous),
  quantity: Number(row.quantity),
  keyName: row.key_name,
  requestId: row.request_id,
  reason: row.reason,
  ref: row.ref,
});

/**
 * A ChangeRow's columns in its order, as a statement reads them without an object per row
 * (better-sqlite3's `raw()`, pg's `rowMode: "array"`): a feed page is 1,000 rows, and
 * better-sqlite3 builds a row's object property by property (a page read as objects took
 * 1.5 ms, as arrays 0.8; pg's objects about 0.25 ms of a page).
 */
export type ChangeColumns = [
  seq: bigint,
  pet_id: bigint,
  at: StoredInt,
  previous: StoredInt | null,
  quantity: StoredInt,
  key_name: string | null,
  request_id: string | null,
  reason: string | null,
  ref: string | null,
];

/** The FeedRecord a row read as its columns holds (toFeedRecord's, from ChangeColumns). */
export const columnsToFeedRecord = (columns: ChangeColumns): FeedRecord => ({
  seq: columns[0],
  petId: columns[1],
  at: Number(columns[2]),
  previous: columns[3] === null ? null : Number(columns[3]),
  quantity: Number(columns[4]),
  keyName: columns[5],
  requestId: columns[6],
  reason: columns[7],
  ref: columns[8],
});

/** An idempotency record: the answer a caller's key got, kept for its 24 hours. */
export interface IdempotencyRow {
  owner: string;
  key: string;
  fingerprint: string;
  created_at: StoredInt;
  status: StoredInt;
  body: string;
  etag: string | null;
  /** The seq its answer held as of; null in a record kept before schema version 13. */
  seq: StoredInt | null;
}

/** The record a key's row holds, as the write plan reads it. */
export const toKeyRecord = (row: Omit<IdempotencyRow, "owner" | "key">): KeyRecord => ({
  kind: "recorded",
  fingerprint: row.fingerprint,
  at: Number(row.created_at),
  response: { status: Number(row.status), body: row.body, etag: row.etag },
  seq: row.seq === null ? null : BigInt(row.seq),
});
