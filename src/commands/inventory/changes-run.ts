/** `inventory changes`: walks (or follows) the change feed, printing and saving the cursor. */
import type { ChangeFeedPage } from "../../api/types.js";
import { UsageError } from "../../errors.js";
import { ApiError } from "../../client/errors.js";
import type { InterruptSignal } from "../../exit-codes.js";
import { checkCursorDirectory, readCursorFile, saveCursorFile } from "../../feed/cursor-file.js";
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
  let after = options.after ?? 0n;
  if (cursorFile !== undefined) {
    after = await readCursorFile(cursorFile);
    await checkCursorDirectory(cursorFile);
  }
  const client = await context.apiClient();
  const printer = changesPrinter(layout, io, after);

  let saved = after;
  let printedUpTo = after;
  const save = async (seq: bigint) => {
    if (cursorFile === undefined || seq === saved) return;
    await saveCursorFile(cursorFile, seq);
    saved = seq;
  };
  // Interrupted, a follower gives up the request in flight (a long poll) and its retries.
  const giveUp = new AbortController();
  const fetchPage = async (from: bigint, limit: number, waitSeconds: number) => {
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
    if (page.latestSeq !== undefined && from > page.latestSeq) {
      throw cursorAhead(from, page.latestSeq, cursorFile);
    }
    return page;
  };
  const onPage = async (page: ChangeFeedPage) => {
    const written = await printer.print(page.changes);
    printedUpTo = page.next;
    if (written) await save(page.next);
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
      onLost: (error) => io.err.write(formatFeedLost(error)),
      onBack: (seq) => io.err.write(formatFeedBack(seq)),
    });
  } finally {
    release();
  }
  await printer.finish();
  await save(printedUpTo);
  if (end.interruptedBy !== undefined) {
    throw new FeedInterruptedError(end.interruptedBy, end, cursorFile);
  }
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
      : `if the store was restored, go on from its latest change: echo ${latest} > ${shellWord(cursorFile)} (what changed after the backup and before the restore is gone with it); if the file is another store's, give this one its own`,
  );
}
