/**
 * A count sheet (`inventory count --sheet`) told apart from a file of quantities: its counts
 * are true as of the seq it was printed at, so it is posted with `apply --as-of SEQ`, which
 * keeps what was sold since. Set as plain quantities it would undo every sale made between the
 * printing and the posting, so `apply` without `--as-of` refuses it, and with another seq than
 * its heading states, too. What makes a sheet: its heading (written by output/count.ts), or a
 * `counted` column (a sheet typed into a spreadsheet keeps the column's name).
 */

/** The heading's first line up to its seq, as `writeCountSheet` writes it. */
const HEADING = /^\uFEFF?# count sheet as of seq (\d+):/;

/** The seq a count sheet's heading states; undefined when the text has no such heading. */
export function sheetHeadingSeq(text: string): bigint | undefined {
  const seq = HEADING.exec(text)?.[1];
  return seq === undefined ? undefined : BigInt(seq);
}

/** What makes a counts file a count sheet, as read; undefined for a file of quantities. */
export interface CountSheet {
  /** The seq its heading states, when it has the heading. */
  headingSeq: bigint | undefined;
}
