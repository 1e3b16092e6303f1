/** `inventory changes`: walks (or follows) the change feed, printing and saving the cursor. */
import type { ChangeFeedPage } from "../../api/types.js";
import { UsageError } from "../../errors.js";
import { ApiError } from "../../client/errors.js";
import type { InterruptSignal } from "../../exit-codes.js";
import {
  checkCursorDirectory,
  readCursorFile,
  saveCursorFile,
  type Cursor,
} from "../../feed/cursor-file.js";
import {
  changeAt,
  heldInstead,
  isNotedChange,
  markOf,
  markText,
  type ChangeMark,
} from "../../feed/change-at.js";
import { FeedInterruptedError } from "../../feed/feed-interrupted-error.js";
import { walkFeed } from "../../feed/walk.js";
import {
  changesLayout,
  changesPrinter,
  formatFeedBack,
  formatFeedLost,
} from "../../output/changes.js";
import { chooseFormat } from "../../output/format.js";
import type { CommandContext } from "../../program/factory.js";
import { shellWord } from "../../text/shell-word.js";

/** The options of `inventory changes`, as its command definition parses them. */
export interface InventoryChangesOptions {
  after?: bigint | undefined;
  limit?: number | undefined;
  cursorFile?: string | undefined;
  follow?: boolean | undefined;
  json?: boolean | undefined;
  csv?: boolean | undefined;
}

/**
 * A 404 or 405 to the feed: a server without it (one that implements only the spec, or an
 * older petstore), or a base URL that reaches something else.
 */
function noFeed(error: ApiError): UsageError {
  return new UsageError(
    `the server has no change feed (GET /inventory/changes answered ${error.status}${error.code === undefined ? "" : ` ${error.code}`})`,
    `inventory changes needs a server with GET /v1/inventory/changes (petstore serve has it); check the base URL${error.target === undefined ? "" : ` ${error.target.baseUrl} (from ${error.target.baseUrlSource})`}, which includes /v1`,
  );
}

/**
 * Prints the changes after the cursor (`--after`, the cursor file's, else 0) a page at a time,
 * and with --cursor-file saves each page's cursor once the page is written out (the boxed
 * table prints at the end: its cursor is saved then). Following, it claims SIGINT/SIGTERM:
 * the page being printed is finished and saved, then FeedInterruptedError (130/143).
 */
export async function runInventoryChanges(
  options: InventoryChangesOptions,
  context: CommandContext,
): Promise<void> {
  const { io } = context;
  const follow = options.follow === true;
  const layout = changesLayout(chooseFormat(options, io), follow);
  const cursorFile = options.cursorFile;
  let cursor: Cursor = { seq: options.after ?? 0n };
  if (cursorFile !== undefined) {
    cursor = await readCursorFile(cursorFile);
    await checkCursorDirectory(cursorFile);
  }
  const after = cursor.seq;
  const client = await context.apiClient();
  const printer = changesPrinter(layout, io, after);

  let saved = after;
  /** The last change printed: its seq, and the change itself (the cursor file's mark). */
  let printedUpTo = after;
  let printedMark = cursor.mark;
  const save = async (seq: bigint, mark: ChangeMark | undefined) => {
    if (cursorFile === undefined || seq === saved) return;
    await saveCursorFile(cursorFile, seq, mark);
    saved = seq;
  };
  // Interrupted, a follower gives up the request in flight (a long poll) and its retries.
  const giveUp = new AbortController();
  /** A page after `from`; `cursor` is the seq the user gave, for the message of one too far. */
  const fetchOnce = async (from: bigint, limit: number, waitSeconds: number, cursor = from) => {
    let page: ChangeFeedPage;
    try {
      page = await client.listInventoryChanges(from, limit, {
        waitSeconds,
        signal: giveUp.signal,
      });
    } catch (error) {
      if (error instanceof ApiError && (error.status === 404 || error.status === 405)) {
        throw noFeed(error);
      }
      throw error;
    }
    if (page.latestSeq !== undefined && cursor > page.latestSeq) {
      throw cursorAhead(cursor, page.latestSeq, cursorFile);
    }
    return page;
  };
  // The change the cursor stops after (the cursor file's, then the last one printed) is
  // checked to be the store's at its seq before the first page and again after every lost
  // connection (a store restored meanwhile hands its seqs out again), as part of fetching the
  // page: a follower waits out a server that is not there, and an interrupt ends the wait.
  let markChecked = false;
  const fetchPage = async (from: bigint, limit: number, waitSeconds: number) => {
    if (!markChecked && printedMark !== undefined) {
      const printedAny = printedUpTo !== after;
      await checkChangeMark(printedUpTo, printedMark, { cursorFile, printedAny }, fetchOnce);
    }
    markChecked = true;
    return fetchOnce(from, limit, waitSeconds);
  };
  const onPage = async (page: ChangeFeedPage) => {
    const written = await printer.print(page.changes);
    printedUpTo = page.next;
    const last = page.changes.at(-1);
    if (last !== undefined) printedMark = markOf(last);
    if (written) await save(printedUpTo, printedMark);
  };

  let release: () => void = () => undefined;
  const interrupted = follow
    ? new Promise<InterruptSignal>((resolve) => {
        release = context.interrupts.claim((signal) => {
          resolve(signal);
          giveUp.abort();
        });
      })
    : undefined;
  let end;
  try {
    end = await walkFeed({
      after,
      limit: options.limit,
      follow,
      fetchPage,
      onPage,
      interrupted,
      sleep: context.sleep,
      now: context.now,
      random: context.random,
      onLost: (error) => {
        markChecked = false;
        io.err.write(formatFeedLost(error));
      },
      onBack: (seq) => io.err.write(formatFeedBack(seq)),
    });
  } finally {
    release();
  }
  await printer.finish();
  await save(printedUpTo, printedMark);
  if (end.interruptedBy !== undefined) {
    throw new FeedInterruptedError(end.interruptedBy, end, cursorFile);
  }
}

/**
 * Checks that the store still holds, at `seq`, the change `mark` names: the cursor file's, or
 * the one a follower printed last. A store restored from a backup hands the seqs after the
 * backup out again, to other changes: followed, the cursor would skip those up to its seq.
 * Refused instead, nothing more printed.
 */
async function checkChangeMark(
  seq: bigint,
  mark: ChangeMark,
  { cursorFile, printedAny }: { cursorFile: string | undefined; printedAny: boolean },
  fetchPage: (
    from: bigint,
    limit: number,
    waitSeconds: number,
    cursor: bigint,
  ) => Promise<ChangeFeedPage>,
): Promise<void> {
  // Past the store's latest change, fetchPage refuses it as cursorAhead.
  const held = await changeAt((after, limit) => fetchPage(after, limit, 0, seq), seq);
  if (isNotedChange(held, mark)) return;
  const other = heldInstead(held);
  const change = `the change at seq ${seq} (${markText(mark)})`;
  const whose =
    printedAny || cursorFile === undefined
      ? `the last change printed was ${change}`
      : `the cursor file ${cursorFile} stops after ${change}`;
  throw new UsageError(
    `${whose}, but this store ${other}: it was restored from a backup (or is another store), and the changes it made since would be skipped; nothing ${printedAny ? "more " : ""}was printed`,
    cursorFile === undefined
      ? "go on from the seq of the last change this store and what was printed both hold (the restored backup's latest; docs/operating.md, step 4 of the restore, says how to find it): --after SEQ"
      : `write into ${shellWord(cursorFile)} the seq of the last change this store and the export both hold (the restored backup's latest; docs/operating.md, step 4 of the restore, says how to find it), alone on its line, and run again; or delete the file to export the whole history again`,
  );
}

/**
 * A cursor past the store's latest change was not handed out by this store: a cursor file of
 * another store, or one saved before the store was restored from a backup. Followed, it would
 * print nothing until the store's seqs passed it, and then skip every change up to there.
 */
function cursorAhead(after: bigint, latest: bigint, cursorFile: string | undefined): UsageError {
  const source =
    cursorFile === undefined
      ? `--after ${after} is`
      : `the cursor file ${cursorFile} says seq ${after},`;
  return new UsageError(
    `${source} past the store's latest change (seq ${latest}): this store did not hand it out (another store's cursor, or one saved before the store was restored); nothing was printed`,
    cursorFile === undefined
      ? `give --after a seq this store has handed out (at most ${latest})`
      : `if the store was restored from a backup and has taken no change since, go on from its latest: echo ${latest} > ${shellWord(cursorFile)} (what changed after the backup and before the restore is gone with it); if it has, write the backup's latest seq instead (docs/operating.md, step 4 of the restore); if the file is another store's, give this one its own`,
  );
}
