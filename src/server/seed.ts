/** Reads and validates a seed file: a JSON array of pets with their stock. */
import { readFile } from "node:fs/promises";
import { isInteger, parse } from "lossless-json";
import { isValidQuantity, MAX_PET_ID, MAX_QUANTITY, MIN_QUANTITY } from "../api/limits.js";
import { PET_STATUSES, type PetStatus, type Tag } from "../api/types.js";
import { fileErrorReason } from "../api/file-error.js";
import type { SeedPet } from "./store/store.js";

/** A seed file that cannot be used; the message says which entry and why. */
export class SeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SeedError";
  }
}

const PET_FIELDS = new Set([
  "petId",
  "name",
  "status",
  "quantity",
  "category",
  "photoUrls",
  "tags",
]);

/** Reads `file` and returns its pets, or throws a SeedError naming the file, entry and field. */
export async function loadSeed(file: string): Promise<SeedPet[]> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new SeedError(`cannot read seed file ${file}: ${fileErrorReason(error)}`);
  }
  try {
    return parseSeed(text);
  } catch (error) {
    throw new SeedError(`seed file ${file}: ${(error as Error).message}`);
  }
}

/** Parses seed JSON losslessly (integers become bigints) and validates every entry. */
export function parseSeed(text: string): SeedPet[] {
  let document: unknown;
  try {
    document = parse(text.replace(/^\uFEFF/, ""), null, (value) =>
      isInteger(value) ? BigInt(value) : Number(value),
    );
  } catch (error) {
    throw new Error(`not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(document)) {
    throw new Error('expected a JSON array of pets, like [{"petId": 1, "name": "Rex", ...}]');
  }
  const seen = new Set<bigint>();
  return document.map((entry: unknown, index) => {
    const where = `entry ${index + 1}`;
    try {
      const pet = toSeedPet(entry);
      if (seen.has(pet.id)) throw new Error(`duplicate petId ${pet.id}`);
      seen.add(pet.id);
      return pet;
    } catch (error) {
      throw new Error(`${where}: ${(error as Error).message}`);
    }
  });
}

function toSeedPet(entry: unknown): SeedPet {
  if (!isRecord(entry)) throw new Error("expected an object");
  for (const key of Object.keys(entry)) {
    if (!PET_FIELDS.has(key)) throw new Error(`unknown field "${key}"`);
  }
  const id = entry.petId;
  if (typeof id !== "bigint" || id < 1n || id > MAX_PET_ID) {
    throw new Error("petId must be an integer from 1 to 9223372036854775807");
  }
  const { name, status, quantity } = entry;
  if (typeof name !== "string" || name.trim() === "") {
    throw new Error(`petId ${id}: name must be a non-empty string`);
  }
  if (typeof status !== "string" || !PET_STATUSES.includes(status as PetStatus)) {
    throw new Error(`petId ${id}: status must be one of ${PET_STATUSES.join(", ")}`);
  }
  if (typeof quantity !== "bigint" || !isValidQuantity(Number(quantity))) {
    throw new Error(
      `petId ${id}: quantity must be an integer from ${MIN_QUANTITY} to ${MAX_QUANTITY}`,
    );
  }
  const pet: SeedPet = {
    id,
    name,
    status: status as PetStatus,
    quantity: Number(quantity),
    photoUrls: stringArray(entry.photoUrls ?? [], `petId ${id}: photoUrls`),
    tags: tagArray(entry.tags ?? [], `petId ${id}: tags`),
  };
  if (entry.category !== undefined) pet.category = toTag(entry.category, `petId ${id}: category`);
  return pet;
}

function stringArray(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    throw new Error(`${what} must be an array of strings`);
  }
  return value;
}

function tagArray(value: unknown, what: string): Tag[] {
  if (!Array.isArray(value)) throw new Error(`${what} must be an array`);
  return value.map((item: unknown) => toTag(item, what));
}

function toTag(value: unknown, what: string): Tag {
  if (
    !isRecord(value) ||
    typeof value.id !== "bigint" ||
    value.id < 0n ||
    value.id > MAX_PET_ID ||
    typeof value.name !== "string" ||
    Object.keys(value).length !== 2
  ) {
    throw new Error(`${what} must be {"id": <int64>, "name": <string>}`);
  }
  return { id: value.id, name: value.name };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
