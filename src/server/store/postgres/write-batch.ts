/**
 * One group commit of the PostgreSQL store on one connection, in two round trips:
 *
 * 1. pipelined: BEGIN; claim the batch's new keys (INSERT … ON CONFLICT DO NOTHING: another
 *    transaction's claim of the same key is waited for); lock and read the keys' records and
 *    the pets, and (once the pets are locked) which of the batches' `(petId, ref)` pairs a
 *    history record holds;
 * 2. the write plan (../write-plan.ts) decides every write from what was read (a key's answer
 *    is rendered here, inside the transaction); pipelined: one statement writing quantities,
 *    history records (with their refs, and their feed seqs from the revision row), the keys'
 *    answers (a claimed key whose write kept none, a dry run, is given back), and COMMIT.
 *
 * Locks are always taken in one order (keys sorted, then pets sorted, then the revision row),
 * so instances writing the same pets in different orders wait for each other but never
 * deadlock.
 */
import type pg from "pg";
import {
  claimOf,
  commonPrefix,
  countsOf,
  keyId,
  petIdsOf,
  planWrites,
  refsOf,
  sinceByPet,
  withSeqs,
  type KeyRecord,
  type PlannedChange,
  type PlannedResult,
  type PlannedWrite,
} from "../write-plan.js";
import { toItem, toKeyRecord, type IdempotencyRow, type InventoryRow } from "../rows.js";
import { beginTransaction, statementBound, timedStatement, type Waits } from "./connection.js";

/** The group commit's statements, sent unnamed as statements.ts's are (exported for the plan tests). */
export const SQL = {
  // A placeholder record per key no record holds yet; RETURNING names the keys this
  // transaction claimed. Its answer is written before the commit, so no placeholder is ever
  // seen by another transaction.
  claimKeys: `INSERT INTO idempotency_records (owner, key, fingerprint, created_at, status, body, etag)
    SELECT owner, key, fingerprint, created_at, 0, '', NULL
      FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS claim (owner, key, fingerprint, created_at)
      ORDER BY owner, key
    ON CONFLICT (owner, key) DO NOTHING
    RETURNING owner, key`,
  // Every key's record, locked (an earlier one is taken over once expired), newest version.
  lockKeys: `SELECT owner, key, fingerprint, created_at, status, body, etag, seq FROM idempotency_records
    WHERE (owner, key) IN (SELECT * FROM unnest($1::text[], $2::text[]))
    ORDER BY owner, key FOR UPDATE`,
  lockPets:
    "SELECT id, quantity, status FROM pets WHERE id = ANY ($1::bigint[]) ORDER BY id FOR NO KEY UPDATE",
  // Read once the pets are locked, so a transaction applying the same (pet, ref) has
  // committed by then and is seen (each statement reads as of its own start).
  // One probe of the (ref, pet_id) index per wanted pair, whatever the history holds: as a
  // plain join of 10,000 pairs the planner chose to scan and sort every ref ever applied.
  // LIMIT 1 (the index is unique, so it drops nothing) keeps the subquery a lateral probe.
  // None when no stored ref starts with the pairs' common prefix ($3, commonPrefix): refs
  // sort byte by byte (version 14), so the least ref from the prefix on starts with it
  // exactly when any does, and one step into the index finds that one (the first posting of
  // a count session or a sales file probes nothing more).
  findRefs: `SELECT found.pet_id, found.ref
    FROM unnest($1::bigint[], $2::text[]) AS wanted (pet_id, ref)
    CROSS JOIN LATERAL (SELECT c.pet_id, c.ref FROM inventory_changes c
      WHERE c.ref = wanted.ref AND c.pet_id = wanted.pet_id AND c.ref IS NOT NULL
      LIMIT 1) AS found
    WHERE starts_with((SELECT c.ref FROM inventory_changes c
      WHERE c.ref >= $3::text ORDER BY c.ref LIMIT 1), $3::text)`,
  // The latest seq, read once the pets are locked: no change of a locked pet can commit after
  // it until this transaction has (an answer without changes of its own holds as of it).
  latest: "SELECT revision FROM inventory_revision WHERE id = 1",
  // For each count's (pet, asOf), the net of the pet's changes after asOf; read once the pets
  // are locked, so every change of them that will ever have a seq up to the latest is seen.
  // One index probe of (pet_id, seq) per count: a pet that has not moved since costs one.
  // None for a count as of the latest seq (a sheet counted and posted with nothing sold
  // between): every change of a locked pet has committed by then, with a seq up to it.
  since: `SELECT w.pet_id, w.as_of,
      (SELECT coalesce(sum(c.quantity - coalesce(c.previous, 0)), 0) FROM inventory_changes c
        WHERE c.pet_id = w.pet_id AND c.seq > w.as_of)::bigint AS net
    FROM unnest($1::bigint[], $2::bigint[]) AS w (pet_id, as_of)
    WHERE w.as_of < (SELECT revision FROM inventory_revision WHERE id = 1)`,
  // The plan's writes (migration 13's function, whose plan each server session keeps): the
  // revision row, the keys' answers with their seqs, the pets' quantities, the history records.
  // The seq before this group's first change (null without changes): change i has base + i.
  writePlanned: `SELECT petstore_write_planned($1::bigint[], $2::integer[], $3::text[], $4::text[],
      $5::text[], $6::bigint[], $7::integer[], $8::text[], $9::text[], $10::bigint[],
      $11::bigint[], $12::integer[], $13::integer[], $14::text[], $15::text[], $16::text[],
      $17::text[], $18::text[], $19::text[], $20::integer[], $21::bigint) AS base`,
} as const;

interface KeyRow {
  owner: string;
  key: string;
}

interface RefRow {
  pet_id: bigint;
  ref: string;
}

interface SinceRow {
  pet_id: bigint;
  as_of: bigint;
  net: bigint;
}

/** Where a batch got to, so a lost connection can say whether the batch may have committed. */
export interface BatchProgress {
  commitSent: boolean;
}

/**
 * Sends one of the statements; `timeoutMs`, when given, in place of the pool's bound on how
 * long it may go unanswered (pg's query_timeout, whose clock starts when it is queued).
 */
function run<R extends pg.QueryResultRow>(
  client: pg.PoolClient,
  name: keyof typeof SQL,
  values: unknown[],
  timeoutMs?: number,
): Promise<pg.QueryResult<R>> {
  return client.query<R>(
    timeoutMs === undefined
      ? { text: SQL[name], values }
      : timedStatement(SQL[name], values, timeoutMs),
  );
}

/** The history records of a batch: pet_id, at, previous, quantity, key_name, request_id, reason, ref. */
function changeColumns(changes: readonly PlannedChange[]) {
  return [
    changes.map((change) => change.petId),
    changes.map((change) => Math.floor(change.author.at)),
    changes.map((change) => change.previous),
    changes.map((change) => change.quantity),
    changes.map((change) => change.author.keyName),
    changes.map((change) => change.author.requestId),
    changes.map((change) => change.author.reason),
    changes.map((change) => change.ref),
  ] as const;
}

/** The claims of a batch, one per key (the first write using it), as statement columns. */
function claimColumns(writes: readonly PlannedWrite[]) {
  const seen = new Set<string>();
  const columns = {
    owners: [] as string[],
    keys: [] as string[],
    fingerprints: [] as string[],
    at: [] as number[],
  };
  for (const write of writes) {
    const claim = claimOf(write);
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

const NO_ROWS = Promise.resolve(undefined);

/** Commits `writes` in one transaction on `client`; resolves each write's result, in order. */
export async function writeBatch(
  client: pg.PoolClient,
  writes: readonly PlannedWrite[],
  progress: BatchProgress,
  waits: Waits,
): Promise<PlannedResult[]> {
  const claims = claimColumns(writes);
  const claiming = claims.keys.length > 0;
  const petIds = petIdsOf(writes);
  // The first round's statements are queued together, so each one's clock runs through the
  // lock waits of those before it: a claim and a record lock per key, a lock per pet.
  const lockingBound = statementBound(waits, 2 * claims.keys.length + petIds.length);
  const wantedRefs = refsOf(writes);
  const wantedRefTexts = wantedRefs.map((wanted) => wanted.ref);
  const counts = countsOf(writes);
  const [, claimed, recorded, locked, found, latest, sinceRows] = await allSucceeded<
    [
      unknown,
      pg.QueryResult<KeyRow> | undefined,
      pg.QueryResult<IdempotencyRow> | undefined,
      pg.QueryResult<InventoryRow>,
      pg.QueryResult<RefRow> | undefined,
      pg.QueryResult<{ revision: bigint }>,
      pg.QueryResult<SinceRow> | undefined,
    ]
  >([
    beginTransaction(client, waits.lockTimeoutMs),
    claiming
      ? run<KeyRow>(
          client,
          "claimKeys",
          [claims.owners, claims.keys, claims.fingerprints, claims.at],
          lockingBound,
        )
      : NO_ROWS,
    claiming
      ? run<IdempotencyRow>(client, "lockKeys", [claims.owners, claims.keys], lockingBound)
      : NO_ROWS,
    run<InventoryRow>(client, "lockPets", [petIds], lockingBound),
    wantedRefs.length > 0
      ? run<RefRow>(
          client,
          "findRefs",
          [wantedRefs.map((wanted) => wanted.petId), wantedRefTexts, commonPrefix(wantedRefTexts)],
          lockingBound,
        )
      : NO_ROWS,
    run<{ revision: bigint }>(client, "latest", [], lockingBound),
    counts.length > 0
      ? run<SinceRow>(
          client,
          "since",
          [counts.map((count) => count.petId), counts.map((count) => count.asOf)],
          lockingBound,
        )
      : NO_ROWS,
  ]);

  // A key this transaction claimed has no record yet (the row is its placeholder); so has one
  // whose record was purged (expired) between the claim and the lock.
  const ours = new Set(claimed?.rows.map((row) => keyId(row.owner, row.key)));
  const keys = new Map<string, KeyRecord>(
    claims.keys.map((key, index) => [keyId(claims.owners[index] ?? "", key), { kind: "absent" }]),
  );
  for (const row of recorded?.rows ?? []) {
    const id = keyId(row.owner, row.key);
    if (ours.has(id)) continue;
    keys.set(id, toKeyRecord(row));
  }
  const entries = new Map(locked.rows.map((row) => [row.id, toItem(row)]));
  const refs = (found?.rows ?? []).map((row) => ({ petId: row.pet_id, ref: row.ref }));
  const latestSeq = latest.rows[0]?.revision ?? 0n;
  const since = sinceByPet(
    (sinceRows?.rows ?? []).map((row) => ({
      petId: row.pet_id,
      asOf: row.as_of,
      net: Number(row.net),
    })),
  );
  const plan = planWrites(writes, { entries, keys, refs, since, latestSeq });

  const written = [...plan.quantities];
  const { answers } = plan;
  // A key this transaction claimed whose write kept no answer (a dry run) gives its
  // placeholder back.
  const answered = new Set(answers.map((answer) => keyId(answer.owner, answer.key)));
  const released = claims.keys.flatMap((key, index) => {
    const owner = claims.owners[index] ?? "";
    const id = keyId(owner, key);
    return ours.has(id) && !answered.has(id) ? [{ owner, key }] : [];
  });
  progress.commitSent = true;
  const [planned, commit] = await allSucceeded<
    [pg.QueryResult<{ base: bigint | null }>, pg.QueryResult]
  >([
    run<{ base: bigint | null }>(client, "writePlanned", [
      written.map(([petId]) => petId),
      written.map(([, quantity]) => quantity),
      answers.map((answer) => answer.owner),
      answers.map((answer) => answer.key),
      answers.map((answer) => answer.fingerprint),
      answers.map((answer) => Math.floor(answer.at)),
      answers.map((answer) => answer.response.status),
      answers.map((answer) => answer.response.body),
      answers.map((answer) => answer.response.etag),
      ...changeColumns(plan.changes),
      released.map((claim) => claim.owner),
      released.map((claim) => claim.key),
      answers.map((answer) => answer.changesThrough),
      latestSeq,
    ]),
    client.query("COMMIT"),
  ]);
  // A COMMIT of a transaction that failed is answered ROLLBACK, not an error.
  if (commit.command !== "COMMIT")
    throw new Error(`PostgreSQL answered ${commit.command} to COMMIT`);
  const base = planned.rows[0]?.base ?? latestSeq;
  return withSeqs(plan, (index) => base + BigInt(index + 1), latestSeq);
}
