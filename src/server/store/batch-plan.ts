/**
 * What a batch of updates comes to, worked out in arrival order on the entries it read:
 * each condition sees the writes before it in the batch (two writes conditional on one
 * quantity never both pass), and an Idempotency-Key used twice in one batch is applied once
 * and replayed to the other. Pure: a store locks and reads the rows and the keys' records
 * first, then writes what the plan says, in the same transaction.
 */
import type { InventoryItem } from "../../api/types.js";
import type {
  ChangeAuthor,
  StoredResponse,
  UpdateOptions,
  UpdateResult,
  WriteOutcome,
} from "./store.js";
import { authorOf } from "./store.js";

/** One update of the batch, as the caller asked for it. */
export interface BatchUpdate {
  petId: bigint;
  quantity: number;
  options: UpdateOptions;
}

/**
 * What the database holds for a key the batch uses: `claimed`, a record this transaction
 * made (or took over once expired) and holds; `kept`, an unexpired record of an earlier request.
 */
export type KeyState =
  { kind: "claimed" } | { kind: "kept"; fingerprint: string; response: StoredResponse };

/** The answer to keep with a key the batch claimed. */
export interface KeyAnswer {
  owner: string;
  key: string;
  response: StoredResponse;
}

/** A write of the batch, as its history record keeps it. */
export interface PlannedChange {
  petId: bigint;
  previous: number;
  quantity: number;
  author: ChangeAuthor;
}

export interface BatchPlan {
  /** Each update's result, in the batch's order. */
  results: UpdateResult[];
  /** Every write, in the batch's order: one history record each. */
  changes: PlannedChange[];
  /** The final quantity of every entry the batch writes. */
  quantities: Map<bigint, number>;
  /** The answers to keep with the keys the batch claimed. */
  answers: KeyAnswer[];
}

/** How a plan names a key: its owner and the key (neither holds a NUL). */
export function keyId(owner: string, key: string): string {
  return `${owner}\0${key}`;
}

/**
 * Plans `updates` in order on `entries` (every existing entry they name, as read under lock)
 * and `keys` (the state of every key they claim, by keyId).
 */
export function planBatch(
  updates: readonly BatchUpdate[],
  entries: ReadonlyMap<bigint, InventoryItem>,
  keys: ReadonlyMap<string, KeyState>,
): BatchPlan {
  const current = new Map(entries);
  const keyStates = new Map(keys);
  const quantities = new Map<bigint, number>();
  const answers: KeyAnswer[] = [];
  const changes: PlannedChange[] = [];

  const write = (update: BatchUpdate): WriteOutcome => {
    const entry = current.get(update.petId);
    if (!entry) return { kind: "not_found" };
    const { condition } = update.options;
    if (condition?.kind === "quantity_in" && !condition.quantities.includes(entry.quantity)) {
      return { kind: "precondition_failed", current: entry };
    }
    const item = { ...entry, quantity: update.quantity };
    current.set(update.petId, item);
    quantities.set(update.petId, update.quantity);
    changes.push({
      petId: update.petId,
      previous: entry.quantity,
      quantity: update.quantity,
      author: authorOf(update.options),
    });
    return { kind: "updated", item };
  };

  const results = updates.map((update): UpdateResult => {
    const claim = update.options.idempotency;
    if (!claim) return write(update);
    const id = keyId(claim.owner, claim.key);
    const state = keyStates.get(id);
    if (state === undefined) throw new Error(`the batch holds no state for a key it claims`);
    if (state.kind === "kept") {
      return state.fingerprint === claim.fingerprint
        ? { kind: "replayed", response: state.response }
        : { kind: "key_reused" };
    }
    const outcome = write(update);
    const response = claim.render(outcome);
    keyStates.set(id, { kind: "kept", fingerprint: claim.fingerprint, response });
    answers.push({ owner: claim.owner, key: claim.key, response });
    return outcome;
  });
  return { results, changes, quantities, answers };
}
