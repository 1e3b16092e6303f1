/**
 * A counting session: what has been counted of each pet, and as of which feed seq. Every
 * accepted line is a journal entry (journal.ts), and the session is what its entries say,
 * replayed in order: a session resumed after a crash is the session that was shown.
 */
import { PET_STATUSES, type PetStatus } from "../api/types.js";

/** A pet as its first line read it: the count is true as of `asOf`, when the book was `book`. */
export interface PetRead {
  status: PetStatus;
  book: number;
  asOf: bigint;
}

export interface CountedPet {
  petId: bigint;
  read: PetRead;
  counted: number;
}

/** The session's first entry: what it counts, against which server, and why. */
export interface SessionHeader {
  type: "session";
  id: string;
  /** The base URL of the server (never the key). */
  server: string;
  startedAt: string;
  /** A full stocktake: pets of the scope not counted are counted 0. */
  full: boolean;
  /** The scope of a full stocktake: one status, or null for every pet. */
  status: PetStatus | null;
}

/** The pets of a full stocktake's scope, as read when it started. */
export interface ScopeEntry {
  type: "scope";
  asOf: bigint;
  pets: { petId: bigint; status: PetStatus; book: number }[];
}

export type LineEntry =
  | { type: "add"; petId: bigint; units: number; read?: PetRead | undefined }
  | { type: "set"; petId: bigint; count: number; read?: PetRead | undefined };

/**
 * The change the store held at `seq`, the highest seq a pet of the session was read as of: a
 * store restored from a backup hands that seq out again, to another change (see commands/inventory/count-seen.ts).
 */
export interface SeenEntry {
  type: "seen";
  seq: bigint;
  petId: bigint;
  at: string;
}

export type JournalEntry =
  | SessionHeader
  | ScopeEntry
  | LineEntry
  | SeenEntry
  | { type: "undo" }
  | { type: "posted"; at: string };

/** What `undo` takes back: the line, and the pet's count before it (undefined: it was new). */
interface Undoable {
  line: LineEntry;
  before: number | undefined;
}

/** The totals of a session: the review's last lines, and `?`. */
export interface SessionTotals {
  pets: number;
  units: number;
  /** Σ (counted − book). */
  netVariance: number;
  /** Pets whose count differs from their book. */
  petsOff: number;
}

export class CountSession {
  readonly header: SessionHeader;
  #scope: ScopeEntry | undefined;
  readonly #pets = new Map<bigint, CountedPet>();
  readonly #lines: Undoable[] = [];
  #posted = false;
  #seen: SeenEntry | undefined;

  constructor(header: SessionHeader) {
    this.header = header;
  }

  /** Replays a journal: its first entry must be the header. */
  static replay(entries: readonly JournalEntry[]): CountSession {
    const [header, ...rest] = entries;
    if (header?.type !== "session") throw new Error("a session journal starts with its header");
    const session = new CountSession(header);
    for (const entry of rest) session.apply(entry);
    return session;
  }

  get posted(): boolean {
    return this.#posted;
  }

  /** The change at the highest seq a pet was read as of, when the session has noted one. */
  get seen(): SeenEntry | undefined {
    return this.#seen;
  }

  get scope(): ScopeEntry | undefined {
    return this.#scope;
  }

  /** The pet's count so far, or undefined when no line has counted it (its first line reads it). */
  pet(petId: bigint): CountedPet | undefined {
    return this.#pets.get(petId);
  }

  /** Applies an entry (a journal's, or a line just journaled). */
  apply(entry: JournalEntry): void {
    switch (entry.type) {
      case "session":
        throw new Error("a session journal has one header");
      case "scope":
        this.#scope = entry;
        return;
      case "posted":
        this.#posted = true;
        return;
      case "seen":
        this.#seen = entry;
        return;
      case "undo":
        this.#undo();
        return;
      case "add":
      case "set":
        this.#count(entry);
        return;
    }
  }

  #count(line: LineEntry): void {
    const pet = this.#pets.get(line.petId);
    const before = pet?.counted;
    const read = pet?.read ?? line.read;
    if (read === undefined) throw new Error(`the first line of pet ${line.petId} has no read`);
    const counted = line.type === "set" ? line.count : (before ?? 0) + line.units;
    this.#pets.set(line.petId, { petId: line.petId, read, counted });
    this.#lines.push({ line, before });
  }

  /** Takes back the last line; a pet whose only line it was is no longer counted. */
  #undo(): void {
    const last = this.#lines.pop();
    if (last === undefined) return;
    const pet = this.#pets.get(last.line.petId);
    if (pet === undefined) return;
    if (last.before === undefined) this.#pets.delete(pet.petId);
    else this.#pets.set(pet.petId, { ...pet, counted: last.before });
  }

  /** The line `undo` would take back, if any. */
  lastLine(): LineEntry | undefined {
    return this.#lines.at(-1)?.line;
  }

  /** The pets counted, in petId order. */
  counted(): CountedPet[] {
    return [...this.#pets.values()].sort((a, b) => (a.petId < b.petId ? -1 : 1));
  }

  /**
   * What the review lists: every pet counted and, in a full stocktake, every pet of its scope
   * not counted, as counted 0 as of the scope's read (`uncounted` marks them).
   */
  review(): { pet: CountedPet; uncounted: boolean }[] {
    const rows = this.counted().map((pet) => ({ pet, uncounted: false }));
    const scope = this.#scope;
    if (!this.header.full || scope === undefined) return rows;
    for (const { petId, status, book } of scope.pets) {
      if (this.#pets.has(petId)) continue;
      rows.push({
        pet: { petId, read: { status, book, asOf: scope.asOf }, counted: 0 },
        uncounted: true,
      });
    }
    return rows.sort((a, b) => (a.pet.petId < b.pet.petId ? -1 : 1));
  }

  /** The totals of what the review lists. */
  totals(): SessionTotals {
    let units = 0;
    let netVariance = 0;
    let petsOff = 0;
    const rows = this.review();
    for (const { pet } of rows) {
      units += pet.counted;
      netVariance += pet.counted - pet.read.book;
      if (pet.counted !== pet.read.book) petsOff += 1;
    }
    return { pets: rows.length, units, netVariance, petsOff };
  }
}

/** Whether `value` is a pet status (a journal is read back from a file a person may edit). */
export function isPetStatus(value: unknown): value is PetStatus {
  return (PET_STATUSES as readonly unknown[]).includes(value);
}
