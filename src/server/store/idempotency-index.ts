/**
 * Where each Idempotency-Key's newest record is in the SQLite store's table, kept in memory.
 *
 * Why not a UNIQUE index on (owner, key) in the file: keys are random, so each new record
 * lands on a random leaf page of such an index, and every group commit wrote one more whole
 * page per idempotent write to the WAL (three to four times the bytes of a plain PATCH, and
 * growing with the table). Records are appended in id order instead, so a commit writes only
 * the table's last page, and this index answers the lookup. The table stays the truth: the
 * index is rebuilt from it on open, catches up with rows another process appended (`since`),
 * and a hit is checked against the row it points to.
 *
 * Additions made inside a transaction are pending until it commits: a rolled-back record must
 * not be found later, while a second request with the same key in the same batch must find
 * the first one's.
 */
export class IdempotencyIndex {
  /** `ownerNumber \0 key` → record id; in insertion order, which is id order. */
  readonly #committed = new Map<string, number>();
  #pending = new Map<string, number>();
  /** Owners (digests of API keys, 64 characters) by a short number, so each entry stays small. */
  readonly #owners = new Map<string, number>();
  /** The highest committed record id seen: rows above it were appended by another process. */
  #lastId = 0;

  /** The highest committed record id this index has seen. */
  get lastId(): number {
    return this.#lastId;
  }

  /** How many keys it holds (committed). */
  get size(): number {
    return this.#committed.size;
  }

  /** The id of the newest record of `(owner, key)`, pending or committed, if any. */
  find(owner: string, key: string): number | undefined {
    const entry = this.#entry(owner, key);
    return this.#pending.get(entry) ?? this.#committed.get(entry);
  }

  /** Records that the table's row `id` (committed by another process, or read on open) is the key's newest. */
  addCommitted(id: number, owner: string, key: string): void {
    this.#commitEntry(this.#entry(owner, key), id);
  }

  /** Records a row written by the transaction under way: found at once, kept only if it commits. */
  addPending(id: number, owner: string, key: string): void {
    const entry = this.#entry(owner, key);
    this.#pending.delete(entry);
    this.#pending.set(entry, id);
  }

  /** The transaction committed: its rows become committed entries, in the order they were written. */
  commit(): void {
    for (const [entry, id] of this.#pending) this.#commitEntry(entry, id);
    this.#pending = new Map();
  }

  /** The transaction rolled back: forgets its rows. */
  rollback(): void {
    if (this.#pending.size > 0) this.#pending = new Map();
  }

  /**
   * Forgets entries whose rows are gone: every id below `oldestId`, the smallest id left in
   * the table (undefined when it is empty). Entries are in id order, so this stops at the
   * first one that stays.
   */
  forgetBelow(oldestId: number | undefined): void {
    for (const [entry, id] of this.#committed) {
      if (oldestId !== undefined && id >= oldestId) break;
      this.#committed.delete(entry);
    }
  }

  /** Sets `entry` → `id` at the end (delete first: a Map keeps a key's first position). */
  #commitEntry(entry: string, id: number): void {
    this.#committed.delete(entry);
    this.#committed.set(entry, id);
    if (id > this.#lastId) this.#lastId = id;
  }

  #entry(owner: string, key: string): string {
    let number = this.#owners.get(owner);
    if (number === undefined) {
      number = this.#owners.size;
      this.#owners.set(owner, number);
    }
    return `${number}\0${key}`;
  }
}
