/**
 * The change a store holds at a seq, checked against one noted before. A store restored from a
 * backup hands the seqs after the backup out again, to other changes: a reader that noted the
 * change at a seq (a cursor file's last change, a count session's `seen`) checks that the store
 * still holds it there before it trusts the seqs up to it. A store that holds it holds every
 * change before it as it was: a backup is the store as it was up to some seq.
 */
import type { ChangeFeedPage, FeedChange } from "../api/types.js";
import { printable } from "../text/printable.js";

/** A change as it is noted: its pet and its time, exactly as the feed gave it. */
export interface ChangeMark {
  petId: bigint;
  at: string;
}

/** A page of the feed after `after`, through the caller's client (its errors its own). */
export type FetchFeedPage = (after: bigint, limit: number) => Promise<ChangeFeedPage>;

/** The mark of a change. */
export function markOf(change: FeedChange): ChangeMark {
  return { petId: change.petId, at: change.at };
}

/** The change the store holds at `seq` (1 or more), or undefined when it holds none there. */
export async function changeAt(
  fetchPage: FetchFeedPage,
  seq: bigint,
): Promise<ChangeMark | undefined> {
  const change = (await fetchPage(seq - 1n, 1)).changes[0];
  return change?.seq === seq ? markOf(change) : undefined;
}

/** Whether `held`, what the store has at a seq, is the change `mark` noted there. */
export function isNotedChange(held: ChangeMark | undefined, mark: ChangeMark): boolean {
  return held !== undefined && held.petId === mark.petId && held.at === mark.at;
}

/** A noted change in words: `pet 7 at 2026-11-25T12:53:02.980Z`. */
export function markText(mark: ChangeMark): string {
  return `pet ${mark.petId} at ${printable(mark.at)}`;
}

/** What the store has at the seq in place of the noted change, in words. */
export function heldInstead(held: ChangeMark | undefined): string {
  return held === undefined
    ? "holds no change at that seq"
    : `has another change there (${markText(held)})`;
}
