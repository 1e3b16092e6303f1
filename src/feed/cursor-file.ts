/**
 * The cursor file of `inventory changes --cursor-file F`: the seq of the last change printed,
 * in decimal on its first line, and on a second the change it was (`pet 42 at <its time>`),
 * so that a store restored from a backup, which hands the same seqs out again to other
 * changes, is found out: the file then names a change that store does not hold at that seq.
 * A file of the seq alone (written by hand, or by an earlier petstore) is read as it says.
 * Read when a run starts (no file: 0, the beginning of the feed), and replaced atomically only
 * once the changes it covers are written out: a run killed between printing and saving prints
 * those changes again next time, and never skips one.
 */
import { constants } from "node:fs";
import { randomBytes } from "node:crypto";
import { access, open, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { MAX_PET_ID, readWrittenWholeNumber } from "../api/limits.js";
import { UsageError } from "../errors.js";
import { fileErrorReason } from "../api/file-error.js";

/** The largest seq a cursor holds: seqs are int64, as petIds are. */
const MAX_SEQ = MAX_PET_ID;

/** What the hint of a bad cursor file says to do. */
const CURSOR_HINT =
  "the file holds the seq of the last change printed, written by inventory changes --cursor-file; delete it to start from the first change, or write the seq to start after";

/** The change a cursor stops after, as the file names it: its pet and its time. */
export interface CursorMark {
  petId: bigint;
  /** The change's `at`, exactly as the feed gave it. */
  at: string;
}

/** What a cursor file holds: the seq to start after, and the change at it when written by a run. */
export interface Cursor {
  seq: bigint;
  mark?: CursorMark | undefined;
}

const MARK_LINE = /^pet ([1-9][0-9]{0,18}) at (\S+)$/;

/** The second line of a cursor file: the change at its seq. */
function markLine(mark: CursorMark): string {
  return `pet ${mark.petId.toString()} at ${mark.at}`;
}

/** The text of a malformed cursor file, short and on one line, for the message. */
function quoted(text: string): string {
  const line = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  return line;
}

/**
 * The cursor in the file at `path`; seq 0 when there is no such file. A first line that is not
 * one whole number from 0 to 2^63 - 1 (whitespace around it aside), a second that does not name
 * a change as a run writes it, more lines, or a file that cannot be read, is a UsageError
 * naming it: guessing would skip changes or print them all again.
 */
export async function readCursorFile(path: string): Promise<Cursor> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { seq: 0n };
    throw new UsageError(`cannot read the cursor file ${path}: ${fileErrorReason(error)}`);
  }
  const [first = "", second, ...more] = text.trim().split(/\r?\n/);
  const reading = readWrittenWholeNumber(first, 0n, MAX_SEQ);
  if (!reading.ok) {
    throw new UsageError(
      `the cursor file ${path} does not hold a seq: ${reading.empty ? "it is empty" : `found ${quoted(first.trim())}, ${reading.reason}`}`,
      CURSOR_HINT,
    );
  }
  if (second === undefined) return { seq: reading.value };
  const mark = MARK_LINE.exec(second.trim());
  if (mark === null || more.length > 0 || reading.value === 0n) {
    throw new UsageError(
      `the cursor file ${path} holds more than a seq and the change at it: found ${quoted(text.trim())}`,
      `${CURSOR_HINT} (a run writes the seq, then a line "pet PETID at TIME" naming that change)`,
    );
  }
  return { seq: reading.value, mark: { petId: BigInt(mark[1] ?? "0"), at: mark[2] ?? "" } };
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

/**
 * Replaces the cursor file with `seq` and `mark`, the change at it (none: the seq alone), atomically: the new text goes to `F.<random>.tmp` beside
 * it, is synced to disk, and is renamed over F (then the directory is synced), so F holds either
 * the old cursor or the new one, whole, whenever the process or the machine stops. The random
 * part keeps two runs given the same file (a job that overlapped the last, on this machine or
 * in two containers sharing the volume, both process 1) from renaming each other's text away.
 */
export async function saveCursorFile(
  path: string,
  seq: bigint,
  mark: CursorMark | undefined,
): Promise<void> {
  const temporary = join(dirname(path), `${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temporary, "w");
    try {
      // A time with a space in it (not one of petstore's) could not be read back: left out.
      const second = mark === undefined || !/^\S+$/.test(mark.at) ? "" : `${markLine(mark)}\n`;
      await handle.writeFile(`${seq.toString()}\n${second}`, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw new UsageError(
      `cannot save the cursor file ${path}: ${fileErrorReason(error)}`,
      `the changes up to seq ${seq.toString()} were printed; the next run starts from the cursor the file still holds and prints them again`,
    );
  }
  await syncDirectory(dirname(path));
}
