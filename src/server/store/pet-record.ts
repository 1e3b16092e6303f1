/**
 * How both stores keep a pet's record: `photo_urls` and `tags` as JSON text, tag ids as
 * decimal strings so int64 ids stay exact, the category as two nullable columns.
 */
import type { Pet, PetStatus, Tag } from "../../api/types.js";

/** A `pets` row as both stores read it for `getPet`. */
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
