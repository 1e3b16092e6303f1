/**
 * A count is true as of a seq: the server takes the pet's book as of that seq and adds what
 * changed after it. A store restored from a backup hands the seqs after the backup out again,
 * to other changes, and a count posted as of one of those would be taken against changes it
 * never saw, and exit 0. So a session notes the change at the highest seq it has read a pet as
 * of (its `seen` entry), and checks that the store still holds that change at that seq before
 * it notes a higher one and before it posts. A store that holds it holds every change before it
 * as it was: a restore goes back to a backup, which is a store as it was up to some seq.
 */
import type { ApiClient } from "../../client/api-client.js";
import { ApiError } from "../../client/errors.js";
import { UsageError } from "../../errors.js";
import { printable } from "../../text/printable.js";
import type { Journal } from "../../count/journal.js";
import type { CountSession, SeenEntry } from "../../count/session.js";

/** A change as the session notes it: its pet and its time, exactly as the feed gave it. */
type Change = Pick<SeenEntry, "petId" | "at">;

/** The store's change at `seq`; undefined when it holds none; "no feed": it cannot say. */
async function changeAt(client: ApiClient, seq: bigint): Promise<Change | undefined | "no feed"> {
  try {
    const change = (await client.listInventoryChanges(seq - 1n, 1)).changes[0];
    return change?.seq === seq ? { petId: change.petId, at: change.at } : undefined;
  } catch (error) {
    // A server without the feed has no counts either (they need petstore serve): nothing to check.
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) {
      return "no feed";
    }
    throw error;
  }
}

/** The store no longer holds the change the session's counts are as of; nothing was posted. */
export class StoreRestoredError extends UsageError {
  constructor(sessionId: string, seen: SeenEntry, held: Change | undefined) {
    const other =
      held === undefined
        ? "holds no change at that seq"
        : `has another change there (pet ${held.petId} at ${printable(held.at)})`;
    super(
      `count session ${sessionId} read its pets as of the changes up to seq ${seen.seq} (pet ${seen.petId} at ${printable(seen.at)}), but the store ${other}: it was restored from a backup since (or is another store), and these counts would be taken against changes it no longer holds; nothing was posted`,
      "count those pets again in a new session (petstore inventory count): this one stays as it was saved, and petstore inventory count --sessions lists it",
    );
  }
}

/** Checks that the store still holds the change the session last noted (none noted: nothing). */
export async function checkSeen(session: CountSession, client: ApiClient): Promise<void> {
  const seen = session.seen;
  if (seen === undefined) return;
  const held = await changeAt(client, seen.seq);
  if (held === "no feed") return;
  if (held !== undefined && held.petId === seen.petId && held.at === seen.at) return;
  throw new StoreRestoredError(session.header.id, seen, held);
}

/**
 * A pet was read as of `asOf`: past the seq the session noted last, the change there is
 * checked (StoreRestoredError when gone) and the one at `asOf` noted in its place, journaled.
 */
export async function noteSeen(
  session: CountSession,
  journal: Journal,
  client: ApiClient,
  asOf: bigint,
): Promise<void> {
  const seen = session.seen;
  if (asOf === 0n || (seen !== undefined && asOf <= seen.seq)) return;
  await checkSeen(session, client);
  const change = await changeAt(client, asOf);
  if (change === undefined || change === "no feed") return;
  const entry: SeenEntry = { type: "seen", seq: asOf, ...change };
  journal.append(entry);
  session.apply(entry);
}
