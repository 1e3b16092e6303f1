/** Accepted API keys: where they come from and how a presented key is checked. */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFile } from "node:fs/promises";

/** Keys from `PETSTORE_API_KEYS` (comma-separated) and an optional file (one per line, `#` comments). */
export async function loadApiKeys(envValue: string | undefined, file?: string): Promise<string[]> {
  const keys = (envValue ?? "").split(",");
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      throw new Error(
        `cannot read API keys file ${file}: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
      );
    }
    keys.push(...text.split(/\r?\n/).filter((line) => !line.trimStart().startsWith("#")));
  }
  return [...new Set(keys.map((key) => key.trim()).filter((key) => key !== ""))];
}

const digest = (key: string) => createHash("sha256").update(key).digest();

/**
 * Returns a checker that tells whether a presented key is one of `keys`. Keys
 * are compared as SHA-256 digests with timingSafeEqual, and every key is
 * compared on every call, so timing reveals neither a key nor which one matched.
 */
export function createKeyChecker(keys: readonly string[]): (presented: string) => boolean {
  const digests = keys.map(digest);
  return (presented) => {
    const candidate = digest(presented);
    let matched = false;
    for (const known of digests) matched = timingSafeEqual(candidate, known) || matched;
    return matched;
  };
}
