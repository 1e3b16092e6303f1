/**
 * One group commit of the PostgreSQL store on one connection, in as few round trips as the
 * batch allows:
 *
 * - distinct pets, no Idempotency-Key (plain and conditional PATCHes): one statement, in one
 *   round trip, that locks the pets, checks each condition against the locked entry, writes
 *   and raises the revision;
 * - otherwise (a key, or a pet twice): two round trips. Pipelined: BEGIN, claim the keys, lock
 *   and read the pets; then planBatch works the updates out in arrival order (a key's answer
 *   is rendered here, inside the transaction); pipelined: one statement writing quantities,
 *   answers and revision, and COMMIT. A key used before costs a read between the two.
 *
 * ANNOUNCE (postgres-lease.ts) follows each transaction in its last round trip: the other
 * instances holding a cache lease, notified of the revision.
 *
 * Locks are always taken in one order — keys sorted, then pets sorted, then the revision row
 * — so instances writing the same pets in different orders wait for each other but never
 * deadlock.
 */
import type pg from "pg";
import {
  keyId,
  planBatch,
  type BatchUpdate,
  type KeyState,
  type PlannedChange,
} from "./batch-plan.js";
import { announce, type Announcement } from "./postgres-lease.js";
import { isUnreachable } from "./postgres-connection.js";
import { toItem, type InventoryRow } from "./postgres-rows.js";
import { authorOf, IDEMPOTENCY_TTL_MS, type ChangeAuthor, type UpdateResult } from "./store.js";

/** Named statements: each connection prepares one the first time it runs it. */
const SQL = {
  // MATERIALIZED: every pet is locked (in id order) before anything is written, and the
  // revision row, raised only once the whole write is done, is locked last.
  writeDistinct: `WITH locked AS MATERIALIZED (
      SELECT id, quantity, status FROM pets WHERE id = ANY ($1::bigint[]) ORDER BY id FOR NO KEY UPDATE
    ), planned AS MATERIALIZED (
      SELECT wanted.ord, wanted.id, wanted.quantity, locked.quantity AS current, locked.status,
        locked.id IS NOT NULL
          AND (wanted.allowed IS NULL OR locked.quantity = ANY (wanted.allowed::integer[])) AS passes
      , wanted.at, wanted.key_name, wanted.request_id, wanted.reason
      FROM unnest($1::bigint[], $2::integer[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[])
          WITH ORDINALITY AS wanted (id, quantity, allowed, at, key_name, request_id, reason, ord)
        LEFT JOIN locked ON locked.id = wanted.id
    ), written AS (
      UPDATE pets SET quantity = planned.quantity FROM planned
        WHERE pets.id = planned.id AND planned.passes
        RETURNING 1
    ), recorded AS (
      INSERT INTO inventory_changes (pet_id, at, previous, quantity, key_name, request_id, reason)
        SELECT id, at, current, quantity, key_name, request_id, reason
        FROM planned WHERE passes ORDER BY ord
    ), raised AS (
      UPDATE inventory_revision SET revision = revision + 1
        WHERE id = 1 AND (SELECT count(*) FROM written) > 0
    )
    SELECT current, status, passes FROM planned ORDER BY ord`,
  // A new record per key, or an expired one taken over; RETURNING names the keys claimed. A
  // key another transaction holds is waited for; one whose record is unexpired is locked.
  claimKeys: `INSERT INTO idempotency_keys (owner, key, fingerprint, created_at, status, body, etag)
    SELECT owner, key, fingerprint, created_at, 0, '', NULL
      FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS claim (owner, key, fingerprint, created_at)
      ORDER BY owner, key
    ON CONFLICT (owner, key) DO UPDATE
      SET fingerprint = excluded.fingerprint, created_at = excluded.created_at, status = 0, body = '', etag = NULL
      WHERE idempotency_keys.created_at <= excluded.created_at - $5
    RETURNING owner, key`,
  findKeys: `SELECT owner, key, fingerprint, status, body, etag FROM idempotency_keys
    WHERE (owner, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
  lockPets:
    "SELECT id, quantity, status FROM pets WHERE id = ANY ($1::bigint[]) ORDER BY id FOR NO KEY UPDATE",
  // Keys and pets are locked already; the revision row, raised when anything was written, last.
  // History records are inserted in the batch's order, so their ids order them.
  writePlanned: `WITH answered AS (
      UPDATE idempotency_keys SET status = answer.status, body = answer.body, etag = answer.etag
        FROM unnest($3::text[], $4::text[], $5::integer[], $6::text[], $7::text[])
          AS answer (owner, key, status, body, etag)
        WHERE idempotency_keys.owner = answer.owner AND idempotency_keys.key = answer.key
    ), written AS (
      UPDATE pets SET quantity = planned.quantity
        FROM unnest($1::bigint[], $2::integer[]) AS planned (id, quantity)
        WHERE pets.id = planned.id
        RETURNING 1
    ), recorded AS (
      INSERT INTO inventory_changes (pet_id, at, previous, quantity, key_name, request_id, reason)
        SELECT pet_id, at, previous, quantity, key_name, request_id, reason
        FROM unnest($8::bigint[], $9::bigint[], $10::integer[], $11::integer[], $12::text[], $13::text[], $14::text[])
          WITH ORDINALITY AS change (pet_id, at, previous, quantity, key_name, request_id, reason, ord)
        ORDER BY ord
    )
    UPDATE inventory_revision SET revision = revision + 1
      WHERE id = 1 AND (SELECT count(*) FROM written) > 0`,
} as const;

interface PlannedRow {
  current: number | null;
  status: InventoryRow["status"] | null;
  passes: boolean;
}

interface ClaimedKeyRow {
  owner: string;
  key: string;
}

interface KeyRecordRow extends ClaimedKeyRow {
  fingerprint: string;
  status: number;
  body: string;
  etag: string | null;
}

/** Where a batch got to, so a lost connection can say whether the batch may have committed. */
export interface BatchProgress {
  commitSent: boolean;
}

/** What a committed batch gives: each update's result, in order, and the revision it raised. */
export interface BatchOutcome {
  results: UpdateResult[];
  /** Undefined when the batch changed nothing. */
  announcement: Announcement | undefined;
}

/**
 * The batch's outcome once its transaction committed: ANNOUNCE's answer when it wrote or
 * replayed anything. ANNOUNCE failing after the commit leaves the revision unknown (a lost connection
 * is still a lost connection: the caller answers 503, maybe committed).
 */
async function outcome(
  results: UpdateResult[],
  announcing: Promise<Announcement>,
): Promise<BatchOutcome> {
  let announcement: Announcement;
  try {
    announcement = await announcing;
  } catch (error) {
    if (isUnreachable(error)) throw error;
    announcement = { kind: "unknown" };
  }
  // A replay acknowledges a write too: of this batch's revision or an earlier one (the
  // claim waited for the first write's commit), which the others may not have heard of yet.
  const wrote = results.some((result) => result.kind === "updated" || result.kind === "replayed");
  return { results, announcement: wrote ? announcement : undefined };
}

/** Waits for a statement pipelined after a failed one, then throws the failure. */
async function failedBefore(error: unknown, after: Promise<unknown>): Promise<never> {
  await after.catch(() => undefined);
  throw error;
}

/** Commits `updates` in one transaction on `client`, as instance `instanceId`. */
export function writeBatch(
  client: pg.PoolClient,
  updates: readonly BatchUpdate[],
  progress: BatchProgress,
  instanceId: string,
): Promise<BatchOutcome> {
  const distinct = new Set(updates.map((update) => update.petId)).size === updates.length;
  return distinct && updates.every((update) => !update.options.idempotency)
    ? writeDistinct(client, updates, progress, instanceId)
    : writePlanned(client, updates, progress, instanceId);
}

function run<R extends pg.QueryResultRow>(
  client: pg.PoolClient,
  name: keyof typeof SQL,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  return client.query<R>({ name, text: SQL[name], values });
}

/** One statement, committed on its own, and ANNOUNCE: updates of distinct pets, none with a key. */
async function writeDistinct(
  client: pg.PoolClient,
  updates: readonly BatchUpdate[],
  progress: BatchProgress,
  instanceId: string,
): Promise<BatchOutcome> {
  progress.commitSent = true;
  const writing = run<PlannedRow>(client, "writeDistinct", [
    updates.map((update) => update.petId),
    updates.map((update) => update.quantity),
    updates.map(({ options: { condition } }) =>
      condition?.kind === "quantity_in" ? `{${condition.quantities.join(",")}}` : null,
    ),
    ...authorColumns(updates.map((update) => authorOf(update.options))),
  ]);
  const announcing = announce(client, instanceId);
  const { rows } = await writing.catch((error: unknown) => failedBefore(error, announcing));
  const results = updates.map((update, index): UpdateResult => {
    const row = rows[index];
    if (!row || row.current === null || row.status === null) return { kind: "not_found" };
    const { petId } = update;
    return row.passes
      ? { kind: "updated", item: { petId, quantity: update.quantity, status: row.status } }
      : {
          kind: "precondition_failed",
          current: { petId, quantity: row.current, status: row.status },
        };
  });
  return outcome(results, announcing);
}

/** Who made each change, as statement columns: at, key_name, request_id, reason. */
function authorColumns(authors: readonly ChangeAuthor[]) {
  return [
    authors.map((author) => Math.floor(author.at)),
    authors.map((author) => author.keyName),
    authors.map((author) => author.requestId),
    authors.map((author) => author.reason),
  ] as const;
}

/** The history records of a batch: pet_id, at, previous, quantity, key_name, request_id, reason. */
function changeColumns(changes: readonly PlannedChange[]) {
  const [at, keyNames, requestIds, reasons] = authorColumns(changes.map((change) => change.author));
  return [
    changes.map((change) => change.petId),
    at,
    changes.map((change) => change.previous),
    changes.map((change) => change.quantity),
    keyNames,
    requestIds,
    reasons,
  ] as const;
}

/** The claims of a batch, one per key (the first update using it), as statement columns. */
function claimColumns(updates: readonly BatchUpdate[]) {
  const seen = new Set<string>();
  const columns = {
    owners: [] as string[],
    keys: [] as string[],
    fingerprints: [] as string[],
    at: [] as number[],
  };
  for (const { options } of updates) {
    const claim = options.idempotency;
    if (!claim || seen.has(keyId(claim.owner, claim.key))) continue;
    seen.add(keyId(claim.owner, claim.key));
    columns.owners.push(claim.owner);
    columns.keys.push(claim.key);
    columns.fingerprints.push(claim.fingerprint);
    columns.at.push(Math.floor(claim.at));
  }
  return columns;
}

/** Settles every promise (pipelined statements all answer); throws the first failure. */
async function allSucceeded<T extends readonly unknown[]>(promises: {
  [K in keyof T]: Promise<T[K]>;
}): Promise<T> {
  const settled = await Promise.allSettled(promises);
  for (const outcome of settled) {
    if (outcome.status === "rejected") throw outcome.reason;
  }
  return settled.map(
    (outcome) => (outcome as PromiseFulfilledResult<unknown>).value,
  ) as unknown as T;
}

/** A transaction of two round trips (three when a key was used before), planned in between. */
async function writePlanned(
  client: pg.PoolClient,
  updates: readonly BatchUpdate[],
  progress: BatchProgress,
  instanceId: string,
): Promise<BatchOutcome> {
  const claims = claimColumns(updates);
  const petIds = [...new Set(updates.map((update) => update.petId))];
  const [, claimed, locked] = await allSucceeded<
    [pg.QueryResult, pg.QueryResult<ClaimedKeyRow> | undefined, pg.QueryResult<InventoryRow>]
  >([
    client.query("BEGIN"),
    claims.keys.length === 0
      ? Promise.resolve(undefined)
      : run<ClaimedKeyRow>(client, "claimKeys", [
          claims.owners,
          claims.keys,
          claims.fingerprints,
          claims.at,
          IDEMPOTENCY_TTL_MS,
        ]),
    run<InventoryRow>(client, "lockPets", [petIds]),
  ]);

  const keys = new Map<string, KeyState>();
  for (const row of claimed?.rows ?? []) keys.set(keyId(row.owner, row.key), { kind: "claimed" });
  if (keys.size < claims.keys.length) {
    // Keys used before: their records, committed (the claim waited for any writer of them).
    const found = await run<KeyRecordRow>(client, "findKeys", [claims.owners, claims.keys]);
    for (const row of found.rows) {
      const id = keyId(row.owner, row.key);
      if (keys.has(id)) continue;
      keys.set(id, {
        kind: "kept",
        fingerprint: row.fingerprint,
        response: { status: row.status, body: row.body, etag: row.etag },
      });
    }
  }

  const plan = planBatch(updates, new Map(locked.rows.map((row) => [row.id, toItem(row)])), keys);
  const written = [...plan.quantities];
  const { answers } = plan;
  progress.commitSent = true;
  const committing = allSucceeded<[pg.QueryResult, pg.QueryResult]>([
    run(client, "writePlanned", [
      written.map(([petId]) => petId),
      written.map(([, quantity]) => quantity),
      answers.map((answer) => answer.owner),
      answers.map((answer) => answer.key),
      answers.map((answer) => answer.response.status),
      answers.map((answer) => answer.response.body),
      answers.map((answer) => answer.response.etag),
      ...changeColumns(plan.changes),
    ]),
    client.query("COMMIT"),
  ]);
  const announcing = announce(client, instanceId);
  const [, commit] = await committing.catch((error: unknown) => failedBefore(error, announcing));
  // A COMMIT of a transaction that failed is answered ROLLBACK, not an error.
  if (commit.command !== "COMMIT") {
    await announcing.catch(() => undefined);
    throw new Error(`PostgreSQL answered ${commit.command} to COMMIT`);
  }
  return outcome(plan.results, announcing);
}
