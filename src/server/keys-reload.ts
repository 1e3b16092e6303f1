/**
 * SIGHUP: the keys file read again, as at start (with PETSTORE_API_KEYS), and checked whole
 * before anything changes. A valid file's keys hold from the next request on; a file that
 * cannot be used changes nothing but the reload metrics and a log line naming FILE:LINE.
 * Readings run one at a time, in the order the signals came.
 */
import { ApiKeysError, type ApiKey, loadApiKeys } from "../api/keys-file.js";
import type { KeyRing } from "./key-ring.js";
import type { ServerMetrics } from "./metrics.js";
import { oneAtATime } from "./one-at-a-time.js";

/** Where a reload says what happened: the server's logger (pino's info/error). */
export interface ReloadLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface KeysSource {
  /** PETSTORE_API_KEYS as the server started with it. */
  envKeys: string | undefined;
  /** --api-keys-file; without one there is nothing to read again. */
  file: string | undefined;
}

export type ReloadOutcome =
  { kind: "reloaded"; keys: number } | { kind: "refused"; reason: string } | { kind: "no_file" };

export interface KeysReloader {
  /** Reads the keys again (after any reading already under way) and says what came of it. */
  reload(log: ReloadLog): Promise<ReloadOutcome>;
}

export function keysReloader(
  ring: KeyRing,
  source: KeysSource,
  metrics: ServerMetrics | undefined,
  clock: () => number = Date.now,
): KeysReloader {
  const readOnce = async (log: ReloadLog): Promise<ReloadOutcome> => {
    const { file } = source;
    if (file === undefined) {
      log.info({}, "SIGHUP: no keys file (--api-keys-file) to read again; the keys stay");
      return { kind: "no_file" };
    }
    let keys: ApiKey[];
    try {
      keys = await loadApiKeys(source.envKeys, file);
      if (keys.length === 0) throw new ApiKeysError(`${file}: no API key in the file`);
    } catch (error) {
      if (!(error instanceof ApiKeysError)) throw error;
      metrics?.keysReloaded({ ok: false });
      log.error(
        { file, reason: error.message },
        `keys file refused, the old keys stay: ${error.message}`,
      );
      return { kind: "refused", reason: error.message };
    }
    const changes = keyChanges(ring.keys, keys);
    ring.replace(keys);
    metrics?.keysReloaded({ ok: true, at: clock() });
    log.info(
      { file, keys: keys.length, ...changes },
      `keys reloaded: ${keys.length} ${keys.length === 1 ? "key" : "keys"} from ${file}`,
    );
    return { kind: "reloaded", keys: keys.length };
  };
  return { reload: oneAtATime(readOnce) };
}

/** Which key names a reload added, removed, or gave a new key (names only: they are logged). */
function keyChanges(
  before: readonly ApiKey[],
  after: readonly ApiKey[],
): { added: string[]; removed: string[]; changed: string[] } {
  const earlier = new Map(before.map((key) => [key.name, key]));
  const later = new Set(after.map(({ name }) => name));
  const changes = { added: [] as string[], removed: [] as string[], changed: [] as string[] };
  for (const key of after) {
    const old = earlier.get(key.name);
    if (old === undefined) changes.added.push(key.name);
    else if (old.digestHex !== key.digestHex || old.scope !== key.scope) {
      changes.changed.push(key.name);
    }
  }
  for (const { name } of before) if (!later.has(name)) changes.removed.push(name);
  return changes;
}
