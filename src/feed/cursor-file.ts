/**
 * The cursor file of `inventory changes --cursor-file F`: the seq of the last change printed,
 * in decimal on one line. Beside it, `F.last-change` names that change (`SEQ pet N at TIME`),
 * so that a store restored from a backup, which hands the same seqs out again to other
 * changes, is found out: it then holds another change at that seq. F keeps its one number
 * (scripts read it); a last-change file of another seq than F's (F written by hand, or
 * deleted) names nothing, and no check is made. Both are read when a run starts (no F: 0, the
 * beginning of the feed), and replaced atomically only once the changes F covers are written
 * out: a run killed between printing and saving prints those changes again next time, and
 * never skips one.
 */
import { constants } from "node:fs";
import { randomBytes } from "node:crypto";
import { access, open, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { MAX_PET_ID, readWrittenWholeNumber } from "../api/limits.js";
import { UsageError } from "../errors.js";
import { fileErrorReason } from "../api/file-error.js";
import type { ChangeMark } from "./change-at.js";

/** The largest seq a cursor holds: seqs are int64, as petIds are. */
const MAX_SEQ = MAX_PET_ID;

/** What the hint of a bad cursor file says to do. */
const CURSOR_HINT =
  "the file holds the seq of the last change printed, written by inventory changes --cursor-file; delete it to start from the first change, or write the seq to start after";

/** Where a run starts: the seq to start after, and the change at it when a run saved it. */
export interface Cursor {
  seq: bigint;
  mark?: ChangeMark | undefined;
}

/** The file beside the cursor file `path` that names the change at its seq. */
function lastChangePath(path: string): string {
  return `${path}.last-change`;
}

const LAST_CHANGE = /^([1-9][0-9]{0,18}) pet ([1-9][0-9]{0,18}) at (\S+)$/;

/** The text of a malformed cursor file, short and on one line, for the message. */
function quoted(text: string): string {
  const line = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  return line;
}

/** The text of the file at `path`; undefined when there is none. */
async function readIfThere(path: string, what: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UsageError(`cannot read ${what} ${path}: ${fileErrorReason(error)}`);
  }
}

/**
 * The cursor in the file at `path`, seq 0 when there is no such file, with the change its
 * last-change file names at that seq. A cursor file that is not one whole number from 0 to
 * 2^63 - 1 (whitespace around it aside), a last-change file that is not one as a run writes
 * it, or a file that cannot be read, is a UsageError naming it: guessing would skip changes or
 * print them all again.
 */
export async function readCursorFile(path: string): Promise<Cursor> {
  const text = await readIfThere(path, "the cursor file");
  if (text === undefined) return { seq: 0n };
  const reading = readWrittenWholeNumber(text, 0n, MAX_SEQ);
  if (!reading.ok) {
    throw new UsageError(
      `the cursor file ${path} does not hold a seq: ${reading.empty ? "it is empty" : `found ${quoted(text.trim())}, ${reading.reason}`}`,
      CURSOR_HINT,
    );
  }
  const seq = reading.value;
  const markPath = lastChangePath(path);
  const markText = await readIfThere(markPath, "the last-change file");
  if (markText === undefined) return { seq };
  const mark = LAST_CHANGE.exec(markText.trim());
  if (mark === null) {
    throw new UsageError(
      `the last-change file ${markPath} does not name a change: found ${quoted(markText.trim())}`,
      `inventory changes --cursor-file writes it beside the cursor file ("SEQ pet PETID at TIME"); delete it, and the next run makes a new one`,
    );
  }
  // Of another seq than the cursor's: the cursor was written by hand, or the file deleted.
  if (BigInt(mark[1] ?? "0") !== seq) return { seq };
  return { seq, mark: { petId: BigInt(mark[2] ?? "0"), at: mark[3] ?? "" } };
}

/**
 * Checks, before anything is fetched, that the cursor file can be replaced: its directory
 * exists and may be written to (the new cursor is written beside it, then renamed over it).
 */
export async function checkCursorDirectory(path: string): Promise<void> {
  const directory = dirname(path);
  try {
    await access(directory, constants.W_OK);
  } catch (error) {
    throw new UsageError(
      `cannot save the cursor file ${path}: its directory ${directory}: ${fileErrorReason(error)}`,
      "give --cursor-file a path in a directory that exists and this user may write to",
    );
  }
}

/** Makes a rename in `directory` durable; a file system that cannot sync a directory is left be. */
async function syncDirectory(directory: string): Promise<void> {
  let handle;
  try {
    handle = await open(directory, "r");
    await handle.sync();
  } catch {
    // Windows cannot open a directory; some file systems refuse fsync on one (EINVAL).
  } finally {
    await handle?.close();
  }
}

/** Writes `text` to `path` atomically: a temporary file beside it, synced, renamed over it. */
async function replaceFile(path: string, text: string): Promise<void> {
  const temporary = join(dirname(path), `${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temporary, "w");
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * Replaces the cursor file with `seq`, and its last-change file with `mark`, the change at it,
 * each atomically: the new text goes to `F.<random>.tmp` beside it, is synced to disk, and is
 * renamed over the file (then the directory is synced), so each holds either its old text or
 * its new one, whole, whenever the process or the machine stops. The last-change file goes
 * first: stopped between the two, it names a seq the cursor does not hold yet, and is read as
 * naming nothing. The random part keeps two runs given the same file (a job that overlapped
 * the last, on this machine or in two containers sharing the volume, both process 1) from
 * renaming each other's text away.
 */
export async function saveCursorFile(
  path: string,
  seq: bigint,
  mark: ChangeMark | undefined,
): Promise<void> {
  try {
    // A time with a space in it (not one of petstore's) could not be read back: left out.
    if (mark !== undefined && /^\S+$/.test(mark.at)) {
      await replaceFile(
        lastChangePath(path),
        `${seq.toString()} pet ${mark.petId.toString()} at ${mark.at}\n`,
      );
    }
    await replaceFile(path, `${seq.toString()}\n`);
  } catch (error) {
    throw new UsageError(
      `cannot save the cursor file ${path}: ${fileErrorReason(error)}`,
      `the changes up to seq ${seq.toString()} were printed; the next run starts from the cursor the file still holds and prints them again`,
    );
  }
  await syncDirectory(dirname(path));
}
