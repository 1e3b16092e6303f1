/**
 * The accepted API keys of a running server, replaced whole when the keys file is read again
 * (SIGHUP). A request is checked against the keys held when it is authenticated; a later
 * replacement does not reach it, so requests in flight are never affected.
 */
import { type ApiKey, createKeyChecker } from "./api-keys.js";

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
