/**
 * The write rules, once: what a group of writes comes to, decided from the entries, the
 * idempotency records and the business references a store read in the writes' transaction.
 * Both stores call planWrites and only read before it and write what it says after it, in
 * the same transaction:
 *
 * - writes are worked out in arrival order, each seeing the ones before it: two writes
 *   conditional on one quantity never both pass; a batch's changes likewise, in its order;
 * - a PATCH and a batch's change are one rule (`decideChange`): an unknown pet is
 *   `not_found` whatever else; a `ref` an applied change of the pet carried before is
 *   `duplicate`; a condition (If-Match, `ifQuantity`) compares the entry's quantity; a delta
 *   may not go below 0 or above MAX_QUANTITY; a set to the quantity held is `unchanged`
 *   (a PATCH still records it, as it always has);
 * - an atomic batch with a failed change, and any dry run, leave nothing in the plan but
 *   their results;
 * - an Idempotency-Key with an unexpired record replays its answer (same request) or is
 *   refused (another request), writing nothing; a key without one, or with an expired one,
 *   is applied and its answer kept (not for a dry run), so a second use in the same group
 *   replays it.
 *
 * Pure: no I/O, no clock but the claims' own times.
 */
import { MAX_QUANTITY } from "../../api/limits.js";
import {
  isFailedOutcome,
  type BatchChangeResult,
  type CountFields,
  type InventoryItem,
} from "../../api/types.js";
import {
  IDEMPOTENCY_TTL_MS,
  authorOf,
  type BatchEvaluation,
  type BatchOptions,
  type BatchRefusal,
  type BatchResult,
  type BatchWrite,
  type ChangeAuthor,
  type IdempotencyClaim,
  type StoredResponse,
  type UpdateCondition,
  type UpdateOptions,
  type UpdateResult,
  type WriteOutcome,
} from "./store.js";

/** One write, as the caller asked for it: a PATCH of one entry, or a batch. */
export type PlannedWrite =
  | { kind: "update"; petId: bigint; quantity: number; options: UpdateOptions }
  | { kind: "batch"; batch: BatchWrite; options: BatchOptions };

/** What a write came to: an UpdateResult for an update, a BatchResult for a batch. */
export type PlannedResult = UpdateResult | BatchResult;

/**
 * What the database holds for a key a write claims: `absent`, no record; `recorded`, its
 * record (which may have expired: the plan decides).
 */
export type KeyRecord =
  | { kind: "absent" }
  | {
      kind: "recorded";
      fingerprint: string;
      at: number;
      response: StoredResponse;
      /** The seq its answer held as of (null: kept before records kept one). */
      seq: bigint | null;
    };

/** What a store read in the transaction, before planning. */
export interface WriteState {
  /** Every existing entry the writes name, as read under the transaction's lock. */
  entries: ReadonlyMap<bigint, InventoryItem>;
  /**
   * For every `(petId, asOf)` a count of the writes asks, the net of that pet's changes
   * committed after `asOf`, read once the pet is locked; a pair it lacks moved 0 since.
   */
  since?: SinceByPet | undefined;
  /** The seq of the last change committed when the transaction read (a count's asOf bound). */
  latestSeq?: bigint | undefined;
  /** The record of every key the writes claim, by keyId. */
  keys: ReadonlyMap<string, KeyRecord>;
  /** Of the `(petId, ref)` pairs the writes carry (refsOf), those a history record holds. */
  refs: Iterable<PetRef>;
}

/** An idempotency record to keep: a new one, or one replacing the key's expired record. */
export interface KeptAnswer {
  owner: string;
  key: string;
  fingerprint: string;
  /** The claim's time (Unix ms): the record expires IDEMPOTENCY_TTL_MS after it. */
  at: number;
  response: StoredResponse;
  /**
   * How many of the plan's changes its answer reflects: it is kept with the seq of the last
   * of them, or, when none, the latest seq the transaction read (seqThrough).
   */
  changesThrough: number;
}

/** A write of the plan, as its history record keeps it. */
export interface PlannedChange {
  petId: bigint;
  previous: number;
  quantity: number;
  author: ChangeAuthor;
  ref: string | null;
}

export interface WritePlan {
  /** Each write's result, in the writes' order. */
  results: PlannedResult[];
  /**
   * For each write, how many of `changes` were planned up to and including it: its answer
   * reflects those, so its Inventory-Seq is the seq of the last of them (or, when none, the
   * latest seq the transaction read).
   */
  changesThrough: number[];
  /**
   * The writes replaying an answer kept by an earlier write of this group: their seq is that
   * answer's (their changesThrough is its), known once the plan is written.
   */
  groupReplays: Set<number>;
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

/** A business reference of a pet: a change carrying `ref` of `petId`, applied once ever. */
export interface PetRef {
  petId: bigint;
  ref: string;
}

/**
 * A set of `(petId, ref)` pairs, by ref and then the pet or pets carrying it. Most refs are
 * of one pet (`count:<session>:<petId>`, a sales file's line), so they take no set of their
 * own, and no pair is joined into a string to be looked up (10,000 of a batch were).
 */
export class RefSet {
  readonly #pets = new Map<string, bigint | Set<bigint>>();

  constructor(pairs: Iterable<PetRef> = []) {
    for (const { petId, ref } of pairs) this.add(petId, ref);
  }

  get isEmpty(): boolean {
    return this.#pets.size === 0;
  }

  has(petId: bigint, ref: string): boolean {
    // Empty, it hashes no ref (a batch's 10,000 new refs each asked the applied set first).
    if (this.#pets.size === 0) return false;
    const pets = this.#pets.get(ref);
    return pets === petId || (pets instanceof Set && pets.has(petId));
  }

  add(petId: bigint, ref: string): void {
    const pets = this.#pets.get(ref);
    if (pets === undefined) this.#pets.set(ref, petId);
    else if (pets instanceof Set) pets.add(petId);
    else if (pets !== petId) this.#pets.set(ref, new Set([pets, petId]));
  }

  *[Symbol.iterator](): IterableIterator<PetRef> {
    for (const [ref, pets] of this.#pets) {
      if (pets instanceof Set) for (const petId of pets) yield { petId, ref };
      else yield { petId: pets, ref };
    }
  }
}

/**
 * The net of a pet's changes after a seq, by pet, then by seq: keyed by the numbers
 * themselves, as a batch of 10,000 counts looks each up (a string key cost a conversion each).
 */
export type SinceByPet = ReadonlyMap<bigint, ReadonlyMap<bigint, number>>;

/** SinceByPet of rows a store read. */
export function sinceByPet(
  rows: Iterable<{ petId: bigint; asOf: bigint; net: number }>,
): SinceByPet {
  const since = new Map<bigint, Map<bigint, number>>();
  for (const { petId, asOf, net } of rows) {
    let ofPet = since.get(petId);
    if (!ofPet) since.set(petId, (ofPet = new Map<bigint, number>()));
    ofPet.set(asOf, net);
  }
  return since;
}

/**
 * Every `(petId, asOf)` the writes' counts ask, each once: what a store reads `since` for;
 * with `moved`, only the pairs it says may have moved after asOf (a store that knows a pet
 * has not leaves it out before anything is kept of it). A pet is counted once per batch as a
 * rule, so a pet's first asOf is kept apart and only a second, different one of the same pet
 * gets a set (10,000 counts made 10,000 sets before).
 */
export function countsOf(
  writes: readonly PlannedWrite[],
  moved: (petId: bigint, asOf: bigint) => boolean = () => true,
): { petId: bigint; asOf: bigint }[] {
  const firstAsOf = new Map<bigint, bigint>();
  const otherAsOfs = new Map<bigint, Set<bigint>>();
  const counts: { petId: bigint; asOf: bigint }[] = [];
  for (const write of writes) {
    if (write.kind !== "batch") continue;
    for (const change of write.batch.changes) {
      if (change.count === undefined || !moved(change.petId, change.asOf)) continue;
      const { petId, asOf } = change;
      const first = firstAsOf.get(petId);
      if (first === undefined) firstAsOf.set(petId, asOf);
      else if (first === asOf) continue;
      else {
        let others = otherAsOfs.get(petId);
        if (!others) otherAsOfs.set(petId, (others = new Set<bigint>()));
        if (others.has(asOf)) continue;
        others.add(asOf);
      }
      counts.push({ petId, asOf });
    }
  }
  return counts;
}

/**
 * The plan's results with the seq each answer holds as of (Inventory-Seq): the seq of the last
 * change planned up to it (`seqOfChange`, by its index in `plan.changes`, once written), else
 * `latestRead`, the latest seq the transaction read.
 */
export function withSeqs(
  plan: WritePlan,
  seqOfChange: (index: number) => bigint,
  latestRead: bigint,
): PlannedResult[] {
  return plan.results.map((result, index) => {
    const seq = seqThrough(plan.changesThrough[index] ?? 0, seqOfChange, latestRead);
    switch (result.kind) {
      case "updated":
      case "precondition_failed":
      case "evaluated":
        return { ...result, seq };
      case "replayed":
        return plan.groupReplays.has(index) ? { ...result, seq } : result;
      default:
        return result;
    }
  });
}

/**
 * The seq of an answer reflecting `through` of a plan's changes: the last one's once written
 * (`seqOfChange`, by its index in `plan.changes`), or, when none, `latestRead`.
 */
export function seqThrough(
  through: number,
  seqOfChange: (index: number) => bigint,
  latestRead: bigint,
): bigint {
  return through > 0 ? seqOfChange(through - 1) : latestRead;
}

/** Whether a record made at `recordedAt` still answers for its key at `at` (both Unix ms). */
export function isUnexpired(recordedAt: number, at: number): boolean {
  return recordedAt > at - IDEMPOTENCY_TTL_MS;
}

/** The claim of a write, whichever its kind. */
export function claimOf(write: PlannedWrite): IdempotencyClaim<never> | undefined {
  return write.options.idempotency;
}

/** Every pet the writes name, each once, in the order first named. */
export function petIdsOf(writes: readonly PlannedWrite[]): bigint[] {
  const ids = new Set<bigint>();
  for (const write of writes) {
    if (write.kind === "update") ids.add(write.petId);
    else for (const change of write.batch.changes) ids.add(change.petId);
  }
  return [...ids];
}

/**
 * Every `(petId, ref)` the writes carry: what a store looks up for `refs`. A pair carried twice
 * is named twice (rare; a lookup finds it either way).
 */
export function refsOf(writes: readonly PlannedWrite[]): PetRef[] {
  const refs: PetRef[] = [];
  for (const write of writes) {
    if (write.kind !== "batch") continue;
    for (const { petId, ref } of write.batch.changes) {
      if (ref !== undefined) refs.push({ petId, ref });
    }
  }
  return refs;
}

/**
 * The longest prefix every one of `texts` starts with ("" when they share none): a batch's
 * refs mostly share one (a count session's `count:<session>:`, a sales file's `--ref-prefix`),
 * and when no stored ref starts with it none of them is applied, which a store can tell with
 * one step into its (ref, pet_id) index instead of one lookup per ref.
 */
export function commonPrefix(texts: readonly string[]): string {
  let prefix = texts[0] ?? "";
  for (const text of texts) {
    while (!text.startsWith(prefix)) prefix = prefix.slice(0, -1);
    if (prefix === "") break;
  }
  return prefix;
}

/** How many entry changes a write asks for: what a group commit's size counts. */
export function sizeOf(write: PlannedWrite): number {
  return write.kind === "update" ? 1 : write.batch.changes.length;
}

/** One change of an entry as the rule sees it, from a PATCH or from a batch. */
interface ChangeStep {
  petId: bigint;
  /** The new quantity (a set), or undefined for a relative change. */
  quantity: number | undefined;
  delta: number;
  condition: UpdateCondition | undefined;
  ref: string | undefined;
  /** A set to the quantity held is a change too (a PATCH), not `unchanged`. */
  recordUnchanged: boolean;
  /**
   * A count (the batch's change itself): `count` as of the seq `asOf`; `quantity` and `delta`
   * are then unused.
   */
  count?: Readonly<Pick<CountFields, "count" | "asOf">> | undefined;
}

function conditionHolds(condition: UpdateCondition | undefined, quantity: number): boolean {
  return condition?.kind !== "quantity_in" || condition.quantities.includes(quantity);
}

/** The changes of a write worked out together, to be kept or dropped as one. */
interface Evaluation {
  results: BatchChangeResult[];
  /** The entries as the changes left them (only those they changed). */
  written: Map<bigint, InventoryItem>;
  changes: PlannedChange[];
  refs: RefSet;
  /** The net change of each pet by this evaluation's changes so far (a count's `since`). */
  net: Map<bigint, number>;
}

/** A change's result on an entry: its quantity before, after (or now), and its status. */
function changeResult(
  petId: bigint,
  entry: InventoryItem,
  outcome: BatchChangeResult["outcome"],
  quantity: number,
): BatchChangeResult {
  return { petId, outcome, previous: entry.quantity, quantity, status: entry.status };
}

/** Plans `writes` in order on what the transaction read. */
export function planWrites(writes: readonly PlannedWrite[], state: WriteState): WritePlan {
  const entries = new Map(state.entries);
  const keys = new Map(state.keys);
  // The refs applied before, then also those of the writes kept in this group.
  let refs = new RefSet(state.refs);
  const plan: WritePlan = {
    results: [],
    changesThrough: [],
    groupReplays: new Set(),
    changes: [],
    quantities: new Map(),
    answers: [],
  };
  // The keys whose answers writes of this group kept, with their changesThrough.
  const keptInGroup = new Map<string, number>();
  // The net change of each pet by the writes kept before, in this group: committed after any
  // seq a count of this group can name.
  let groupNet = new Map<bigint, number>();

  /** The rule for one change, on the entries as the writes before (and `evaluation`) left them. */
  const decideChange = (
    step: ChangeStep,
    evaluation: Evaluation,
    author: ChangeAuthor,
  ): BatchChangeResult => {
    const entry = evaluation.written.get(step.petId) ?? entries.get(step.petId);
    if (!entry) {
      return step.count === undefined
        ? { petId: step.petId, outcome: "not_found", previous: null, quantity: null, status: null }
        : {
            petId: step.petId,
            outcome: "not_found",
            previous: null,
            quantity: null,
            status: null,
            book: null,
            since: null,
            counted: step.count.count,
            variance: null,
          };
    }
    const result = (outcome: BatchChangeResult["outcome"], quantity = entry.quantity) =>
      changeResult(step.petId, entry, outcome, quantity);
    const { ref } = step;
    if (ref !== undefined && (refs.has(step.petId, ref) || evaluation.refs.has(step.petId, ref))) {
      return result("duplicate");
    }
    // A count posted before is a duplicate as any change is (above), without a count's fields.
    if (step.count !== undefined) {
      return decideCount(step, step.count, entry, evaluation, author);
    }
    if (!conditionHolds(step.condition, entry.quantity)) return result("conflict");
    const quantity = step.quantity ?? entry.quantity + step.delta;
    if (quantity < 0) return result("below_zero");
    if (quantity > MAX_QUANTITY) return result("too_large");
    if (quantity === entry.quantity && !step.recordUnchanged) return result("unchanged");
    record(step, entry, quantity, evaluation, author);
    return result("changed", quantity);
  };

  /** Writes a change into the evaluation (its entry, history record, ref and net). */
  const record = (
    step: ChangeStep,
    entry: InventoryItem,
    quantity: number,
    evaluation: Evaluation,
    author: ChangeAuthor,
  ): void => {
    evaluation.written.set(step.petId, { ...entry, quantity });
    evaluation.changes.push({
      petId: step.petId,
      previous: entry.quantity,
      quantity,
      author,
      ref: step.ref ?? null,
    });
    if (step.ref !== undefined) evaluation.refs.add(step.petId, step.ref);
    evaluation.net.set(
      step.petId,
      (evaluation.net.get(step.petId) ?? 0) + quantity - entry.quantity,
    );
  };

  /**
   * A count: the pet held `count.count` as of `count.asOf`, so it holds that plus every change
   * of it committed after `asOf` (read by the store, and those of the writes before it in this
   * group and this batch). A count with nothing since and equal to the book is `unchanged`.
   */
  const decideCount = (
    step: ChangeStep,
    count: Readonly<Pick<CountFields, "count" | "asOf">>,
    entry: InventoryItem,
    evaluation: Evaluation,
    author: ChangeAuthor,
  ): BatchChangeResult => {
    const since =
      (state.since?.get(step.petId)?.get(count.asOf) ?? 0) +
      (groupNet.get(step.petId) ?? 0) +
      (evaluation.net.get(step.petId) ?? 0);
    const book = entry.quantity - since;
    const quantity = count.count + since;
    const outcome: BatchChangeResult["outcome"] =
      quantity < 0
        ? "below_zero"
        : quantity > MAX_QUANTITY
          ? "too_large"
          : quantity === entry.quantity
            ? "unchanged"
            : "changed";
    if (outcome === "changed") record(step, entry, quantity, evaluation, author);
    // One literal of every field (not changeResult's spread, nor a closure per count): 10,000
    // counts of a batch spent more on copying results than on the rest of their plan.
    return {
      petId: step.petId,
      outcome,
      previous: entry.quantity,
      quantity: outcome === "changed" ? quantity : entry.quantity,
      status: entry.status,
      book,
      since,
      counted: count.count,
      variance: count.count - book,
    };
  };

  const evaluate = (steps: readonly ChangeStep[], author: ChangeAuthor): Evaluation => {
    const evaluation: Evaluation = {
      results: [],
      written: new Map(),
      changes: [],
      refs: new RefSet(),
      net: new Map(),
    };
    for (const step of steps) evaluation.results.push(decideChange(step, evaluation, author));
    return evaluation;
  };

  const keep = (evaluation: Evaluation): void => {
    for (const [petId, item] of evaluation.written) {
      entries.set(petId, item);
      plan.quantities.set(petId, item.quantity);
    }
    plan.changes.push(...evaluation.changes);
    // Done with, the evaluation's set becomes the group's when that is empty: a batch of
    // 10,000 new refs is not added twice.
    if (refs.isEmpty) refs = evaluation.refs;
    else for (const { petId, ref } of evaluation.refs) refs.add(petId, ref);
    if (groupNet.size === 0) groupNet = evaluation.net;
    else
      for (const [petId, net] of evaluation.net)
        groupNet.set(petId, (groupNet.get(petId) ?? 0) + net);
  };

  const decideUpdate = (write: Extract<PlannedWrite, { kind: "update" }>): WriteOutcome => {
    const step: ChangeStep = {
      petId: write.petId,
      quantity: write.quantity,
      delta: 0,
      condition: write.options.condition,
      ref: undefined,
      recordUnchanged: true,
    };
    const evaluation = evaluate([step], authorOf(write.options));
    keep(evaluation);
    const [result] = evaluation.results;
    if (!result || result.outcome === "not_found") return { kind: "not_found" };
    const item = evaluation.written.get(write.petId) ?? entries.get(write.petId);
    if (!item) throw new Error("an existing entry was not found");
    return result.outcome === "conflict"
      ? { kind: "precondition_failed", current: item }
      : { kind: "updated", item };
  };

  const decideBatch = (
    write: Extract<PlannedWrite, { kind: "batch" }>,
  ): BatchEvaluation | BatchRefusal => {
    const { batch, options } = write;
    const latest = state.latestSeq ?? 0n;
    for (const [index, change] of batch.changes.entries()) {
      if (change.count !== undefined && change.asOf > latest) {
        return {
          kind: "refused",
          problem: `changes[${index}].asOf ${change.asOf} is after the latest change (seq ${latest}): a count is as of a seq a read of the inventory gave (Inventory-Seq)`,
        };
      }
    }
    const steps = batch.changes.map((change): ChangeStep => ({
      petId: change.petId,
      quantity: change.quantity,
      delta: change.delta ?? 0,
      condition:
        change.ifQuantity === undefined
          ? undefined
          : { kind: "quantity_in", quantities: [change.ifQuantity] },
      ref: change.ref,
      recordUnchanged: false,
      count: change.count === undefined ? undefined : change,
    }));
    const evaluation = evaluate(steps, options.author ?? authorOf({}));
    const rejected =
      batch.atomic && evaluation.results.some((result) => isFailedOutcome(result.outcome));
    if (!rejected && !batch.dryRun) keep(evaluation);
    return { kind: "evaluated", results: evaluation.results, rejected };
  };

  for (const write of writes) {
    const claim = claimOf(write);
    const record = claim && keys.get(keyId(claim.owner, claim.key));
    if (claim && record === undefined) {
      throw new Error("the writes claim a key whose record was not read");
    }
    if (claim && record?.kind === "recorded" && isUnexpired(record.at, claim.at)) {
      const keptThrough = keptInGroup.get(keyId(claim.owner, claim.key));
      if (record.fingerprint !== claim.fingerprint) plan.results.push({ kind: "key_reused" });
      else {
        if (keptThrough !== undefined) plan.groupReplays.add(plan.results.length);
        plan.results.push({ kind: "replayed", response: record.response, seq: record.seq });
      }
      plan.changesThrough.push(keptThrough ?? plan.changes.length);
      continue;
    }
    let response: StoredResponse | undefined;
    if (write.kind === "update") {
      const outcome = decideUpdate(write);
      response = write.options.idempotency?.render(outcome);
      plan.results.push(outcome);
    } else {
      const outcome = decideBatch(write);
      // A dry run keeps nothing, its answer included; nor does a refused batch.
      if (!write.batch.dryRun && outcome.kind === "evaluated") {
        response = write.options.idempotency?.render(outcome);
      }
      plan.results.push(outcome);
    }
    plan.changesThrough.push(plan.changes.length);
    if (claim && response) {
      const answer: KeptAnswer = {
        owner: claim.owner,
        key: claim.key,
        fingerprint: claim.fingerprint,
        at: claim.at,
        response,
        changesThrough: plan.changes.length,
      };
      keys.set(keyId(claim.owner, claim.key), { kind: "recorded", ...answer, seq: null });
      keptInGroup.set(keyId(claim.owner, claim.key), answer.changesThrough);
      plan.answers.push(answer);
    }
  }
  return plan;
}

/** The result of an update from a group commit's results (a batch's would be a bug). */
export function asUpdateResult(result: PlannedResult): UpdateResult {
  if (result.kind === "evaluated" || result.kind === "refused") {
    throw new Error("an update was given a batch's result");
  }
  return result;
}

/** The result of a batch from a group commit's results (an update's would be a bug). */
export function asBatchResult(result: PlannedResult): BatchResult {
  switch (result.kind) {
    case "evaluated":
    case "refused":
    case "replayed":
    case "key_reused":
    case "busy":
      return result;
    default:
      throw new Error("a batch was given an update's result");
  }
}
