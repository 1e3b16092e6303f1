/**
 * The accepted API keys of a running server, replaced whole when the keys file is read again
 * (SIGHUP). A request is checked against the keys held when it is authenticated; a later
 * replacement does not reach it, so requests in flight are never affected.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { ApiKey } from "../api/keys-file.js";

export class KeyRing {
  #keys: readonly ApiKey[] = [];
  #check: (presented: string) => ApiKey | undefined = () => undefined;

  constructor(keys: readonly ApiKey[]) {
    this.replace(keys);
  }

  /** Holds `keys` from the next check on; an empty set is refused (the server needs a key). */
  replace(keys: readonly ApiKey[]): void {
    if (keys.length === 0) throw new Error("at least one API key is required");
    this.#keys = keys;
    this.#check = createKeyChecker(keys);
  }

  /** The accepted key a presented key is, or undefined (constant time, see createKeyChecker). */
  check(presented: string): ApiKey | undefined {
    return this.#check(presented);
  }

  /** The keys held now (names, scopes and digests). */
  get keys(): readonly ApiKey[] {
    return this.#keys;
  }

  get size(): number {
    return this.#keys.length;
  }
}

/**
 * Returns a checker that finds the accepted key a presented key is, or undefined. Keys are
 * compared as SHA-256 digests with timingSafeEqual, and every key is compared on every call,
 * so timing reveals neither a key nor which one matched.
 */
export function createKeyChecker(
  keys: readonly ApiKey[],
): (presented: string) => ApiKey | undefined {
  return (presented) => {
    const candidate = createHash("sha256").update(presented).digest();
    let matched: ApiKey | undefined;
    for (const known of keys) {
      const equal = timingSafeEqual(candidate, known.digest);
      matched = equal ? known : matched;
    }
    return matched;
  };
}
