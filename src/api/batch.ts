/**
 * `POST /inventory/batch`: the one reading of its body (the server's check; the CLI's own
 * batches pass it by construction) and the one writing of it (the CLI sends it, tests build
 * it). Written by hand rather than by the JSON schema: `petId` is an int64, which a schema
 * validator sees only as a rounded number, and every refusal must name the change and the
 * field (`changes[3].delta`) in words a person can act on. `batchRequestSchema` describes the
 * same rules for the OpenAPI document; a test checks the two agree on examples.
 */
import { isLosslessNumber } from "lossless-json";
import { exactInteger, isJsonObject } from "./exact-json.js";
import {
  MAX_BATCH_CHANGES,
  MAX_PET_ID,
  MAX_QUANTITY,
  MAX_REF_LENGTH,
  isValidQuantity,
  isValidRef,
} from "./limits.js";
import type { BatchChange, BatchRequest } from "./types.js";

/** What reading a batch body gave: the request, or the first problem, naming where. */
export type BatchReading = { ok: true; request: BatchRequest } | { ok: false; problem: string };

const BATCH_FIELDS = new Set(["atomic", "dryRun", "changes"]);
const CHANGE_FIELDS = new Set(["petId", "quantity", "delta", "count", "asOf", "ifQuantity", "ref"]);

class Refusal extends Error {}

function refuse(message: string): never {
  throw new Refusal(message);
}

/**
 * An integer as the server's JSON reader gives it (api/exact-json.ts, parseRequestJson), by
 * JSON's number model (as JSON Schema and PATCH see it): a plain number (a safe integer), or a
 * LosslessNumber whose text stands for an integer exactly (int64 and beyond, `4.0` or `1e2`
 * written so). Anything else (a fraction, however close to an integer; a string) is not one.
 */
function integerOf(value: unknown): bigint | undefined {
  if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  return isLosslessNumber(value) ? exactInteger(value.value) : undefined;
}

function quantityField(value: unknown, path: string): number {
  const integer = integerOf(value);
  if (integer === undefined || !isValidQuantity(Number(integer))) {
    refuse(`${path} must be a whole number from 0 to ${MAX_QUANTITY}`);
  }
  return Number(integer);
}

function readChange(value: unknown, path: string): BatchChange {
  if (!isJsonObject(value)) refuse(`${path} must be an object`);
  for (const field of Object.keys(value)) {
    if (!CHANGE_FIELDS.has(field)) {
      refuse(
        `${path}.${field.slice(0, 40)} is not a field of a change (petId, quantity, delta or count with asOf, ifQuantity, ref)`,
      );
    }
  }
  const petId = integerOf(value.petId);
  if (value.petId === undefined) refuse(`${path}.petId is required`);
  if (petId === undefined || petId < 1n || petId > MAX_PET_ID) {
    refuse(`${path}.petId must be a whole number from 1 to ${MAX_PET_ID}`);
  }
  const kinds = ["quantity", "delta", "count"].filter((field) => value[field] !== undefined);
  if (kinds.length !== 1) {
    refuse(
      `${path} must have one of quantity (a set), delta (a relative change) or count (a count as of asOf), not ${kinds.length === 0 ? "none" : kinds.join(" and ")}`,
    );
  }
  if (value.count !== undefined || value.asOf !== undefined) return readCount(value, petId, path);
  let change: BatchChange;
  if (value.quantity !== undefined) {
    change = { petId, quantity: quantityField(value.quantity, `${path}.quantity`) };
  } else {
    const delta = integerOf(value.delta);
    if (
      delta === undefined ||
      delta === 0n ||
      delta > BigInt(MAX_QUANTITY) ||
      delta < -BigInt(MAX_QUANTITY)
    ) {
      refuse(
        `${path}.delta must be a non-zero whole number from -${MAX_QUANTITY} to ${MAX_QUANTITY}`,
      );
    }
    change = { petId, delta: Number(delta) };
  }
  if (value.ifQuantity !== undefined) {
    change.ifQuantity = quantityField(value.ifQuantity, `${path}.ifQuantity`);
  }
  if (value.ref !== undefined) {
    if (typeof value.ref !== "string" || !isValidRef(value.ref)) {
      refuse(`${path}.ref must be 1 to ${MAX_REF_LENGTH} visible ASCII characters (no spaces)`);
    }
    change.ref = value.ref;
  }
  return change;
}

/** A count: `count` as of the feed seq `asOf`, with an optional ref; nothing else. */
function readCount(
  value: Readonly<Record<string, unknown>>,
  petId: bigint,
  path: string,
): BatchChange {
  if (value.count === undefined) refuse(`${path}.asOf goes with count: a count as of that seq`);
  const count = quantityField(value.count, `${path}.count`);
  if (value.asOf === undefined) {
    refuse(`${path}.asOf is required with count: the feed seq the count is true as of`);
  }
  const asOf = integerOf(value.asOf);
  if (asOf === undefined || asOf < 0n || asOf > MAX_PET_ID) {
    refuse(`${path}.asOf must be a whole number from 0 to ${MAX_PET_ID}`);
  }
  if (value.ifQuantity !== undefined) {
    refuse(`${path}.ifQuantity does not go with count: a count holds whatever moved since asOf`);
  }
  const change: BatchChange = { petId, count, asOf };
  if (value.ref !== undefined) {
    if (typeof value.ref !== "string" || !isValidRef(value.ref)) {
      refuse(`${path}.ref must be 1 to ${MAX_REF_LENGTH} visible ASCII characters (no spaces)`);
    }
    change.ref = value.ref;
  }
  return change;
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") refuse(`${name} must be true or false`);
  return value;
}

/** Checks a parsed batch body (api/exact-json.ts) against every rule of a batch. */
export function readBatchRequest(value: unknown): BatchReading {
  try {
    if (!isJsonObject(value)) refuse("the body must be an object with a changes array");
    for (const field of Object.keys(value)) {
      if (!BATCH_FIELDS.has(field)) {
        refuse(`${field.slice(0, 40)} is not a field of a batch (atomic, dryRun, changes)`);
      }
    }
    const atomic = flag(value.atomic, "atomic");
    const dryRun = flag(value.dryRun, "dryRun");
    const { changes } = value;
    if (!Array.isArray(changes)) refuse("changes is required: an array of 1 to 10000 changes");
    if (changes.length === 0 || changes.length > MAX_BATCH_CHANGES) {
      refuse(`changes must hold 1 to ${MAX_BATCH_CHANGES} changes, got ${changes.length}`);
    }
    const request: BatchRequest = {
      atomic,
      dryRun,
      changes: changes.map((change, index) => readChange(change, `changes[${index}]`)),
    };
    return { ok: true, request };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, problem: error.message };
    throw error;
  }
}

/** The body of a batch request as JSON, int64 `petId` exact. */
export function serializeBatchRequest(request: BatchRequest): string {
  const changes = request.changes.map((change) => {
    let text = `{"petId":${change.petId}`;
    if (change.count !== undefined) text += `,"count":${change.count},"asOf":${change.asOf}`;
    else if (change.delta !== undefined) text += `,"delta":${change.delta}`;
    else text += `,"quantity":${change.quantity}`;
    if (change.ifQuantity !== undefined) text += `,"ifQuantity":${change.ifQuantity}`;
    if (change.ref !== undefined) text += `,"ref":${JSON.stringify(change.ref)}`;
    return `${text}}`;
  });
  return `{"atomic":${request.atomic},"dryRun":${request.dryRun},"changes":[${changes.join(",")}]}`;
}
