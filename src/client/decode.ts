/**
 * Lossless JSON parsing and minimal shape checks of response bodies. Numbers stay
 * exact (int64 ids become bigint), and a body of the wrong shape is reported by path.
 */
import { isLosslessNumber, parse } from "lossless-json";
import { isJsonObject, parseExactJson } from "../api/exact-json.js";
import { MAX_PET_ID } from "../api/limits.js";
import { printable } from "../text/printable.js";
import {
  BATCH_OUTCOMES,
  ORDER_STATUSES,
  PET_STATUSES,
  type ApiErrorBody,
  type BatchChangeResult,
  type BatchOutcome,
  type BatchResponse,
  type Category,
  type ChangeFeedPage,
  type FeedChange,
  type InventoryChange,
  type InventoryItem,
  type Order,
  type OrderStatus,
  type Pet,
  type PetStatus,
  type Tag,
} from "../api/types.js";

/** A body that does not have the shape the spec promises; `path` locates the bad value. */
export class ShapeError extends Error {
  constructor(path: string, expected: string) {
    super(`${path === "" ? "the body" : path} is not ${expected}`);
    this.name = "ShapeError";
  }
}

/** Parses JSON keeping every number exact (api/exact-json.ts); throws ShapeError on bad JSON. */
export function parseJson(text: string): unknown {
  try {
    return parseExactJson(text);
  } catch {
    throw new ShapeError("", "valid JSON");
  }
}

type Fields = Readonly<Record<string, unknown>>;

const STATUSES: ReadonlySet<string> = new Set(PET_STATUSES);

function object(value: unknown, path: string): Fields {
  if (!isJsonObject(value)) throw new ShapeError(path, "an object");
  return value;
}

function array(value: unknown, path: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new ShapeError(path, "an array");
  return value;
}

function string(value: unknown, path: string): string {
  if (typeof value !== "string") throw new ShapeError(path, "a string");
  return value;
}

function integerText(value: unknown, path: string): string {
  // A plain number comes from the native parser, which keeps integers of 15 digits exact.
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  if (!isLosslessNumber(value) || !/^-?(0|[1-9][0-9]*)$/.test(value.value)) {
    throw new ShapeError(path, "an integer");
  }
  return value.value;
}

/** An int64 id, exact. */
function int64(value: unknown, path: string): bigint {
  // A plain number from the native parser is a safe integer already (the fast path).
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  const id = BigInt(integerText(value, path));
  if (id < -MAX_PET_ID - 1n || id > MAX_PET_ID) throw new ShapeError(path, "an int64");
  return id;
}

/** A count that fits a JS number exactly. */
function safeInteger(value: unknown, path: string): number {
  const number = Number(integerText(value, path));
  if (!Number.isSafeInteger(number)) throw new ShapeError(path, "a safe integer");
  return number;
}

function oneOf<T extends string>(allowed: readonly T[], value: unknown, path: string): T {
  const text = string(value, path);
  const match = allowed.find((candidate) => candidate === text);
  if (match === undefined) throw new ShapeError(path, `one of ${allowed.join(", ")}`);
  return match;
}

/** Checks one InventoryItem. */
export function decodeInventoryItem(value: unknown, path = ""): InventoryItem {
  const fields = object(value, path);
  return {
    petId: int64(fields.petId, `${path}.petId`),
    quantity: safeInteger(fields.quantity, `${path}.quantity`),
    status: oneOf<PetStatus>(PET_STATUSES, fields.status, `${path}.status`),
  };
}

/** Checks the body of `GET /inventory`. */
export function decodeInventoryList(value: unknown): InventoryItem[] {
  return array(value, "").map((item, index) => decodeInventoryItem(item, `[${index}]`));
}

/**
 * Checks the body of `GET /inventory` as decodeInventoryList does, keeping only each pet's
 * quantity: what a plan needs, without an entry object per pet (100,000 of them for a large
 * store). Paths for messages are made only when a value is wrong.
 */
export function decodeInventoryQuantities(value: unknown): Map<bigint, number> {
  const entries = array(value, "");
  const quantities = new Map<bigint, number>();
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index];
    if (!isJsonObject(entry)) throw new ShapeError(`[${index}]`, "an object");
    const { petId, quantity, status } = entry;
    if (typeof status !== "string" || !STATUSES.has(status)) {
      throw new ShapeError(`[${index}].status`, `one of ${PET_STATUSES.join(", ")}`);
    }
    // The native parser's safe integers are the common case: checked without the helpers'
    // paths, which are made when a value is wrong.
    quantities.set(
      typeof petId === "number" && Number.isSafeInteger(petId)
        ? BigInt(petId)
        : int64(petId, `[${index}].petId`),
      typeof quantity === "number" && Number.isSafeInteger(quantity)
        ? quantity
        : safeInteger(quantity, `[${index}].quantity`),
    );
  }
  return quantities;
}

function nullable<T>(value: unknown, path: string, read: (value: unknown, path: string) => T) {
  return value === null ? null : read(value, path);
}

/** Checks one history record. */
function decodeChangeRecord(fields: Fields, path: string): InventoryChange {
  return {
    at: string(fields.at, `${path}.at`),
    petId: int64(fields.petId, `${path}.petId`),
    previous: nullable(fields.previous, `${path}.previous`, safeInteger),
    quantity: safeInteger(fields.quantity, `${path}.quantity`),
    keyName: nullable(fields.keyName, `${path}.keyName`, string),
    requestId: nullable(fields.requestId, `${path}.requestId`, string),
    reason: nullable(fields.reason, `${path}.reason`, string),
    // A server that implements only the spec sends no ref.
    ref: fields.ref === undefined ? null : nullable(fields.ref, `${path}.ref`, string),
  };
}

/** Checks the body of `GET /inventory/{petId}/history`. */
export function decodeInventoryChanges(value: unknown): InventoryChange[] {
  return array(value, "").map((record, index) => {
    const path = `[${index}]`;
    const fields = object(record, path);
    // A server with a change feed numbers its records; one that implements only the spec does not.
    const seq = fields.seq === undefined ? undefined : int64(fields.seq, `${path}.seq`);
    return { ...(seq === undefined ? {} : { seq }), ...decodeChangeRecord(fields, path) };
  });
}

/** A safe integer, but -0 (which the checks below read as 0, through its text). */
const isSafeNumber = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && !Object.is(value, -0);

const isTextOrNull = (value: unknown): value is string | null =>
  value === null || typeof value === "string";

/**
 * A feed record whose fields all hold what the native parser gives for the common case (safe
 * integers, strings, nulls), read without the paths the checks below make for their
 * messages: a follower reads 1,000 records a page, and made nine strings for each. Undefined
 * when any field is otherwise, to be checked (and named when wrong) by checkedFeedChange.
 */
function plainFeedChange(record: unknown): FeedChange | undefined {
  if (!isJsonObject(record)) return undefined;
  const { seq, at, petId, previous, quantity, keyName, requestId, reason, ref } = record;
  if (
    !isSafeNumber(seq) ||
    typeof at !== "string" ||
    !isSafeNumber(petId) ||
    !(previous === null || isSafeNumber(previous)) ||
    !isSafeNumber(quantity) ||
    !isTextOrNull(keyName) ||
    !isTextOrNull(requestId) ||
    !isTextOrNull(reason) ||
    !(ref === undefined || isTextOrNull(ref))
  ) {
    return undefined;
  }
  return {
    seq: BigInt(seq),
    at,
    petId: BigInt(petId),
    previous,
    quantity,
    keyName,
    requestId,
    reason,
    ref: ref ?? null,
  };
}

/** A feed record checked field by field, the first wrong one named by its path. */
function checkedFeedChange(record: unknown, path: string): FeedChange {
  const change = object(record, path);
  return { seq: int64(change.seq, `${path}.seq`), ...decodeChangeRecord(change, path) };
}

/**
 * Checks a page of `GET /inventory/changes?after=…&limit=…` against the feed's promise, so a
 * reader that follows `next` can rely on it: at most `limit` changes, their seqs above `after`
 * and increasing, and `next` the last seq listed (`after` when none is).
 */
export function decodeChangeFeedPage(value: unknown, after: bigint, limit: number): ChangeFeedPage {
  const fields = object(value, "");
  const records = array(fields.changes, ".changes");
  if (records.length > limit) throw new ShapeError(".changes", `at most ${limit} changes`);
  let last = after;
  const changes = records.map((record, index): FeedChange => {
    const change = plainFeedChange(record) ?? checkedFeedChange(record, `.changes[${index}]`);
    if (change.seq <= last) {
      throw new ShapeError(
        `.changes[${index}].seq`,
        `above ${last} (the feed is in increasing seq order)`,
      );
    }
    last = change.seq;
    return change;
  });
  const next = int64(fields.next, ".next");
  if (next !== last) {
    throw new ShapeError(
      ".next",
      changes.length === 0
        ? `${after} (after, as no change is listed)`
        : `${last} (the last seq listed)`,
    );
  }
  return { changes, next };
}

function decodeNamedRef(value: unknown, path: string): Category | Tag {
  const fields = object(value, path);
  return { id: int64(fields.id, `${path}.id`), name: string(fields.name, `${path}.name`) };
}

/** Checks a Pet; `photoUrls` and `tags` default to empty when a server leaves them out. */
export function decodePet(value: unknown): Pet {
  const fields = object(value, "");
  const pet: Pet = {
    id: int64(fields.id, ".id"),
    name: string(fields.name, ".name"),
    status: oneOf<PetStatus>(PET_STATUSES, fields.status, ".status"),
    photoUrls:
      fields.photoUrls === undefined
        ? []
        : array(fields.photoUrls, ".photoUrls").map((url, i) => string(url, `.photoUrls[${i}]`)),
    tags:
      fields.tags === undefined
        ? []
        : array(fields.tags, ".tags").map((tag, i) => decodeNamedRef(tag, `.tags[${i}]`)),
  };
  if (fields.category !== undefined && fields.category !== null) {
    pet.category = decodeNamedRef(fields.category, ".category");
  }
  return pet;
}

/** Checks one Order. */
export function decodeOrder(value: unknown, path = ""): Order {
  const fields = object(value, path);
  const complete = fields.complete;
  if (typeof complete !== "boolean") throw new ShapeError(`${path}.complete`, "a boolean");
  return {
    id: int64(fields.id, `${path}.id`),
    petId: int64(fields.petId, `${path}.petId`),
    quantity: safeInteger(fields.quantity, `${path}.quantity`),
    shipDate: string(fields.shipDate, `${path}.shipDate`),
    status: oneOf<OrderStatus>(ORDER_STATUSES, fields.status, `${path}.status`),
    complete,
  };
}

/** Checks the body of `GET /store/orders`. */
export function decodeOrderList(value: unknown): Order[] {
  return array(value, "").map((order, index) => decodeOrder(order, `[${index}]`));
}

const OUTCOMES: ReadonlySet<string> = new Set(BATCH_OUTCOMES);

/**
 * Checks the `results` of a batch answer (a 200's, or a 409 `batch_rejected`'s): one result
 * per change, int64 petIds exact. Called on up to 10,000 results, so the checks are inline.
 */
export function decodeBatchResults(value: unknown, path: string): BatchChangeResult[] {
  const results = array(value, path);
  const decoded: BatchChangeResult[] = new Array<BatchChangeResult>(results.length);
  for (let index = 0; index < results.length; index += 1) {
    const at = `${path}[${index}]`;
    const fields = object(results[index], at);
    const outcome = fields.outcome;
    if (typeof outcome !== "string" || !OUTCOMES.has(outcome)) {
      throw new ShapeError(`${at}.outcome`, `one of ${BATCH_OUTCOMES.join(", ")}`);
    }
    const status = fields.status;
    if (status !== null && (typeof status !== "string" || !STATUSES.has(status))) {
      throw new ShapeError(`${at}.status`, `null or one of ${PET_STATUSES.join(", ")}`);
    }
    const result: BatchChangeResult = {
      petId: int64(fields.petId, `${at}.petId`),
      outcome: outcome as BatchOutcome,
      previous: nullable(fields.previous, `${at}.previous`, safeInteger),
      quantity: nullable(fields.quantity, `${at}.quantity`, safeInteger),
      status: status as PetStatus | null,
    };
    // A count's result says what it was reconciled with.
    if (fields.counted !== undefined) {
      result.counted = safeInteger(fields.counted, `${at}.counted`);
      result.book = nullable(fields.book, `${at}.book`, safeInteger);
      result.since = nullable(fields.since, `${at}.since`, safeInteger);
      result.variance = nullable(fields.variance, `${at}.variance`, safeInteger);
    }
    decoded[index] = result;
  }
  return decoded;
}

function count(value: unknown, path: string): number {
  const number = safeInteger(value, path);
  if (number < 0) throw new ShapeError(path, "a count (0 or more)");
  return number;
}

/** Checks the 200 body of `POST /inventory/batch`. */
export function decodeBatchResponse(value: unknown): BatchResponse {
  const fields = object(value, "");
  return {
    changed: count(fields.changed, ".changed"),
    unchanged: count(fields.unchanged, ".unchanged"),
    failed: count(fields.failed, ".failed"),
    results: decodeBatchResults(fields.results, ".results"),
  };
}

/** Reads an Error body leniently: whatever of `code` and `message` is usable, or undefined. */
export function decodeErrorBody(text: string): Partial<ApiErrorBody> | undefined {
  let value: unknown;
  try {
    value = parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  if (isLosslessNumber(value)) return undefined;
  const fields = value as Fields;
  const body: Partial<ApiErrorBody> = {};
  // Both are printed on stderr as they are: made safe for a terminal here.
  if (typeof fields.code === "string" && fields.code !== "") body.code = printable(fields.code);
  if (typeof fields.message === "string" && fields.message !== "") {
    body.message = printable(fields.message);
  }
  return body.code === undefined && body.message === undefined ? undefined : body;
}
