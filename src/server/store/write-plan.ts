/**
 * The write rules, once: what a group of writes comes to, decided from the entries and the
 * idempotency records a store read in the writes' transaction. Both stores call planWrites and
 * only read before it and write what it says after it, in the same transaction:
 *
 * - writes are worked out in arrival order, each seeing the ones before it: two writes
 *   conditional on one quantity never both pass;
 * - a condition (If-Match) compares the entry's quantity; an unknown pet is `not_found`
 *   whatever the condition;
 * - an Idempotency-Key with an unexpired record replays its answer (same request) or is
 *   refused (another request), writing nothing; a key without one, or with an expired one,
 *   is applied and its answer kept, so a second use in the same group replays it.
 *
 * Pure: no I/O, no clock but the claims' own times. Batch changes (deltas, `ifQuantity`,
 * refs, atomic, dry run) are meant to be new cases of `decide` and new fields of the state
 * read, not a second path.
 */
import type { InventoryItem } from "../../api/types.js";
import {
  IDEMPOTENCY_TTL_MS,
  authorOf,
  type ChangeAuthor,
  type StoredResponse,
  type UpdateOptions,
  type UpdateResult,
  type WriteOutcome,
} from "./store.js";

/** One write, as the caller asked for it. */
export interface PlannedWrite {
  petId: bigint;
  quantity: number;
  options: UpdateOptions;
}

/**
 * What the database holds for a key a write claims: `absent`, no record; `recorded`, its
 * record (which may have expired: the plan decides).
 */
export type KeyRecord =
  | { kind: "absent" }
  | { kind: "recorded"; fingerprint: string; at: number; response: StoredResponse };

/** What a store read in the transaction, before planning. */
export interface WriteState {
  /** Every existing entry the writes name, as read under the transaction's lock. */
  entries: ReadonlyMap<bigint, InventoryItem>;
  /** The record of every key the writes claim, by keyId. */
  keys: ReadonlyMap<string, KeyRecord>;
}

/** An idempotency record to keep: a new one, or one replacing the key's expired record. */
export interface KeptAnswer {
  owner: string;
  key: string;
  fingerprint: string;
  /** The claim's time (Unix ms): the record expires IDEMPOTENCY_TTL_MS after it. */
  at: number;
  response: StoredResponse;
}

/** A write of the plan, as its history record keeps it. */
export interface PlannedChange {
  petId: bigint;
  previous: number;
  quantity: number;
  author: ChangeAuthor;
}

export interface WritePlan {
  /** Each write's result, in the writes' order. */
  results: UpdateResult[];
  /** Every change, in the writes' order: one history record each. */
  changes: PlannedChange[];
  /** The final quantity of every entry the plan writes, in the order first written. */
  quantities: Map<bigint, number>;
  /** The idempotency records to keep, one per key applied. */
  answers: KeptAnswer[];
}

/** How a plan names a key: its owner and the key (neither holds a NUL). */
export function keyId(owner: string, key: string): string {
  return `${owner}\0${key}`;
}

/** Whether a record made at `recordedAt` still answers for its key at `at` (both Unix ms). */
export function isUnexpired(recordedAt: number, at: number): boolean {
  return recordedAt > at - IDEMPOTENCY_TTL_MS;
}

/** Plans `writes` in order on what the transaction read. */
export function planWrites(writes: readonly PlannedWrite[], state: WriteState): WritePlan {
  const entries = new Map(state.entries);
  const keys = new Map(state.keys);
  const plan: WritePlan = { results: [], changes: [], quantities: new Map(), answers: [] };

  /** The condition and the write itself: the entry as it stands after the writes before. */
  const decide = (write: PlannedWrite): WriteOutcome => {
    const entry = entries.get(write.petId);
    if (!entry) return { kind: "not_found" };
    const { condition } = write.options;
    if (condition?.kind === "quantity_in" && !condition.quantities.includes(entry.quantity)) {
      return { kind: "precondition_failed", current: entry };
    }
    const item = { ...entry, quantity: write.quantity };
    entries.set(write.petId, item);
    plan.quantities.set(write.petId, write.quantity);
    plan.changes.push({
      petId: write.petId,
      previous: entry.quantity,
      quantity: write.quantity,
      author: authorOf(write.options),
    });
    return { kind: "updated", item };
  };

  for (const write of writes) {
    const claim = write.options.idempotency;
    if (!claim) {
      plan.results.push(decide(write));
      continue;
    }
    const id = keyId(claim.owner, claim.key);
    const record = keys.get(id);
    if (record === undefined) throw new Error("the writes claim a key whose record was not read");
    if (record.kind === "recorded" && isUnexpired(record.at, claim.at)) {
      plan.results.push(
        record.fingerprint === claim.fingerprint
          ? { kind: "replayed", response: record.response }
          : { kind: "key_reused" },
      );
      continue;
    }
    const outcome = decide(write);
    const answer: KeptAnswer = {
      owner: claim.owner,
      key: claim.key,
      fingerprint: claim.fingerprint,
      at: claim.at,
      response: claim.render(outcome),
    };
    keys.set(id, { kind: "recorded", ...answer });
    plan.answers.push(answer);
    plan.results.push(outcome);
  }
  return plan;
}
