/**
 * A count is true as of a seq: the server takes the pet's book as of that seq and adds what
 * changed after it. A store restored from a backup hands the seqs after the backup out again,
 * to other changes, and a count posted as of one of those would be taken against changes it
 * never saw, and exit 0. So a session notes the change at the highest seq it has read a pet as
 * of (its `seen` entry), and checks that the store still holds that change there
 * (feed/change-at.ts) when it is resumed, when a pet is read as of another seq, and before it
 * posts.
 */
import type { ApiClient } from "../../client/api-client.js";
import { ApiError } from "../../client/errors.js";
import type { Journal } from "../../count/journal.js";
import type { CountSession, SeenEntry } from "../../count/session.js";
import { UsageError } from "../../errors.js";
import {
  changeAt,
  heldInstead,
  isNotedChange,
  markText,
  type ChangeMark,
} from "../../feed/change-at.js";
import type { IoStreams } from "../../output/io-streams.js";
import { shellWord } from "../../text/shell-word.js";

/** The store's change at `seq`; undefined when it holds none; "no feed": it cannot say. */
async function storeChangeAt(
  client: ApiClient,
  seq: bigint,
): Promise<ChangeMark | undefined | "no feed"> {
  try {
    return await changeAt((after, limit) => client.listInventoryChanges(after, limit), seq);
  } catch (error) {
    // A server without the feed has no counts either (they need petstore serve): nothing to check.
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) {
      return "no feed";
    }
    throw error;
  }
}

/** What to do instead: count again; the session refused stays, its journal said to drop it. */
function recountHint(journal: Pick<Journal, "path">): string {
  return `count those pets again in a new session (petstore inventory count, with the same --full or --status for a stocktake); this one stays open as it was saved: to drop it, delete its journal ${shellWord(journal.path)}`;
}

/** The store no longer holds the change the session's counts are as of; nothing was posted. */
export class StoreRestoredError extends UsageError {
  constructor(
    sessionId: string,
    seen: SeenEntry,
    held: ChangeMark | undefined,
    journal: Pick<Journal, "path">,
  ) {
    super(
      `count session ${sessionId} read its pets as of the changes up to seq ${seen.seq} (${markText(seen)}), but the store ${heldInstead(held)}: it was restored from a backup since (or is another store), and these counts would be taken against changes it no longer holds; nothing was posted`,
      recountHint(journal),
    );
  }
}

/** Checks that the store still holds the change the session noted (none noted: nothing). */
export async function checkSeen(
  session: CountSession,
  journal: Pick<Journal, "path">,
  client: ApiClient,
): Promise<void> {
  const seen = session.seen;
  if (seen === undefined) return;
  const held = await storeChangeAt(client, seen.seq);
  if (held === "no feed" || isNotedChange(held, seen)) return;
  throw new StoreRestoredError(session.header.id, seen, held, journal);
}

/**
 * Journals the store's change at `seq` as the session's `seen`: "noted"; "none" when the store
 * holds no change there; "no feed" when it cannot say.
 */
async function note(
  session: CountSession,
  journal: Journal,
  client: ApiClient,
  seq: bigint,
): Promise<"noted" | "none" | "no feed"> {
  if (seq === 0n) return "none";
  const change = await storeChangeAt(client, seq);
  if (change === undefined) return "none";
  if (change === "no feed") return change;
  const entry: SeenEntry = { type: "seen", seq, ...change };
  journal.append(entry);
  session.apply(entry);
  return "noted";
}

/**
 * A pet was read as of `asOf`. At another seq than the one noted, the noted change is checked
 * first (a lower seq is itself a sign of a store gone back: StoreRestoredError when it is
 * gone); past it, the change at `asOf` is noted in its place.
 */
export async function noteSeen(
  session: CountSession,
  journal: Journal,
  client: ApiClient,
  asOf: bigint,
): Promise<void> {
  const seen = session.seen;
  if (seen !== undefined) {
    if (asOf === seen.seq) return;
    await checkSeen(session, journal, client);
    if (asOf < seen.seq) return;
  }
  await note(session, journal, client, asOf);
}

/**
 * A session resumed: its noted change is checked. One that has reads but noted none (journaled
 * by an earlier petstore) notes the change at its highest seq now, and says that a restore
 * before now cannot be told.
 */
export async function checkResumed(
  session: CountSession,
  journal: Journal,
  client: ApiClient,
  io: Pick<IoStreams, "err">,
): Promise<void> {
  if (session.seen !== undefined) {
    await checkSeen(session, journal, client);
    return;
  }
  const seqs = [
    ...session.counted().map((pet) => pet.read.asOf),
    ...(session.scope === undefined ? [] : [session.scope.asOf]),
  ];
  if (seqs.length === 0) return;
  const highest = seqs.reduce((a, b) => (a > b ? a : b));
  if (highest === 0n) return;
  const noted = await note(session, journal, client, highest);
  if (noted === "no feed") return;
  if (noted === "none") {
    // No change at a seq the store handed out (its latest, when a pet was read): it went back.
    throw new UsageError(
      `count session ${session.header.id} read its pets as of the changes up to seq ${highest}, but the store holds no change at that seq: it was restored from a backup since (or is another store), and these counts would be taken against changes it no longer holds; nothing was posted`,
      recountHint(journal),
    );
  }
  io.err.write(
    `note: session ${session.header.id} was saved by an earlier petstore, which did not note the store's change at seq ${highest}: a restore of the store from a backup before now cannot be told; from now on it can\n`,
  );
}
