/** Counts with their nouns, singular or plural as English wants ("1 row", "2 rows", "0 rows"). */

const RULES = new Intl.PluralRules("en");

/** `count` and the form of the noun that goes with it; `plural` defaults to noun + "s". */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${RULES.select(count) === "one" ? singular : plural}`;
}
