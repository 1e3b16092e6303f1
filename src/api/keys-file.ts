/**
 * The server's accepted API keys as read from PETSTORE_API_KEYS and a keys file: the one
 * reader of keys files (the server at start and on SIGHUP, `petstore keys check`). Only
 * digests are kept: a key itself is hashed as it is read.
 */
import { readFile } from "node:fs/promises";
import { fileErrorReason } from "./file-error.js";
import {
  KEY_DIGEST_PREFIX,
  KEY_NAME_RULE,
  KEY_SCOPES,
  isKeyName,
  isKeyScope,
  keyDigestHex,
  parseKeyDigest,
  type KeyScope,
} from "./api-keys.js";

/** An accepted key as the server keeps it: its name, scope and SHA-256, never the key. */
export interface ApiKey {
  name: string;
  scope: KeyScope;
  /** The key's SHA-256 as lower-case hex: the owner of its idempotency records. */
  digestHex: string;
  /** The same digest as bytes, for the constant-time comparison. */
  digest: Buffer;
}

/** A key whose SHA-256 is `digestHex`. */
export function apiKeyFromDigest(name: string, scope: KeyScope, digestHex: string): ApiKey {
  return { name, scope, digestHex, digest: Buffer.from(digestHex, "hex") };
}

/** A key given as itself (PETSTORE_API_KEYS, a bare line, tests): hashed at once. */
export function apiKeyFromSecret(name: string, scope: KeyScope, key: string): ApiKey {
  return apiKeyFromDigest(name, scope, keyDigestHex(key));
}

/** A keys source that cannot be used; the message names the file and line, never a key. */
export class ApiKeysError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApiKeysError";
  }
}

const LINE_SHAPE = `a line is "<name> <scope> ${KEY_DIGEST_PREFIX}<64 hex digits>" (petstore keys create prints one), a bare key, a # comment or blank`;

/** One key as read, with where it was read, for the messages about duplicates. */
interface ReadKey {
  key: ApiKey;
  where: string;
  /** Bare keys and PETSTORE_API_KEYS entries are named key-N by the loader. */
  bare: boolean;
}

/**
 * Reads one non-blank, non-comment line of a keys file; `where` is `file:line`. Messages never
 * quote a field: a key pasted in the wrong place must not reach the log.
 */
function readLine(line: string, where: string): { bare: string } | { key: ApiKey } {
  const fields = line.split(/\s+/);
  const [name = "", scope = "", digest = ""] = fields;
  if (fields.length === 1) {
    if (name.startsWith(KEY_DIGEST_PREFIX)) {
      throw new ApiKeysError(`${where}: a digest without a name and scope: ${LINE_SHAPE}`);
    }
    return { bare: name };
  }
  if (fields.length !== 3) {
    throw new ApiKeysError(`${where}: malformed line (${fields.length} fields): ${LINE_SHAPE}`);
  }
  if (!isKeyName(name)) {
    throw new ApiKeysError(`${where}: invalid key name: a name is ${KEY_NAME_RULE}`);
  }
  if (!isKeyScope(scope)) {
    throw new ApiKeysError(`${where}: unknown scope: a scope is ${KEY_SCOPES.join(" or ")}`);
  }
  const digestHex = parseKeyDigest(digest);
  if (digestHex === undefined) {
    throw new ApiKeysError(
      `${where}: bad digest: it must be ${KEY_DIGEST_PREFIX} and the 64 hex digits of the key's SHA-256`,
    );
  }
  return { key: apiKeyFromDigest(name, scope, digestHex) };
}

/**
 * The accepted keys from PETSTORE_API_KEYS (comma-separated) and the text of a keys file,
 * without reading anything. PETSTORE_API_KEYS entries, then the file's bare-key lines, are
 * write keys named key-1, key-2, … in that order. Throws ApiKeysError naming the line of a
 * malformed line, an unknown scope, a bad digest, a duplicate name or a duplicate key.
 */
export function apiKeysFrom(
  envValue: string | undefined,
  keysFile?: { path: string; text: string },
): ApiKey[] {
  const read: ReadKey[] = [];
  let bareCount = 0;
  const bareKey = (secret: string, where: string): ReadKey => ({
    key: apiKeyFromSecret(`key-${++bareCount}`, "write", secret),
    where,
    bare: true,
  });
  const entries = (envValue ?? "").split(",").map((entry) => entry.trim());
  entries.forEach((entry, index) => {
    if (entry !== "") read.push(bareKey(entry, `PETSTORE_API_KEYS entry ${index + 1}`));
  });
  if (keysFile !== undefined) {
    keysFile.text.split(/\r?\n/).forEach((text, index) => {
      const line = text.trim();
      if (line === "" || line.startsWith("#")) return;
      const where = `${keysFile.path}:${index + 1}`;
      const parsed = readLine(line, where);
      read.push(
        "bare" in parsed ? bareKey(parsed.bare, where) : { key: parsed.key, where, bare: false },
      );
    });
  }
  rejectKeysAsNames(read);
  rejectDuplicates(read);
  return read.map(({ key }) => key);
}

/**
 * A name that is itself one of the keys (a key pasted in the name column): a name is logged
 * with every request and kept in history, so it would put the key there. Refused without
 * quoting it.
 */
function rejectKeysAsNames(read: readonly ReadKey[]): void {
  const byDigest = new Map(read.map((entry) => [entry.key.digestHex, entry]));
  for (const entry of read) {
    if (entry.bare) continue;
    const named = byDigest.get(keyDigestHex(entry.key.name));
    if (named === undefined) continue;
    throw new ApiKeysError(
      `${entry.where}: the name is a key (the key of ${named.where}): a name says whose key it is and is logged with every request, so it must never be the key; give a name such as ops or till-1`,
    );
  }
}

function rejectDuplicates(read: readonly ReadKey[]): void {
  const byName = new Map<string, ReadKey>();
  const byDigest = new Map<string, ReadKey>();
  for (const entry of read) {
    const { name, digestHex } = entry.key;
    const sameKey = byDigest.get(digestHex);
    if (sameKey !== undefined) {
      throw new ApiKeysError(
        `${entry.where}: duplicate key: the same key as ${sameKey.where} (${sameKey.key.name}); give each key once`,
      );
    }
    const sameName = byName.get(name);
    if (sameName !== undefined) {
      const why =
        entry.bare || sameName.bare
          ? ` (bare keys and PETSTORE_API_KEYS entries are named key-1, key-2, … in order)`
          : "";
      throw new ApiKeysError(
        `${entry.where}: duplicate key name ${name}, already given at ${sameName.where}${why}`,
      );
    }
    byDigest.set(digestHex, entry);
    byName.set(name, entry);
  }
}

/** Keys from `PETSTORE_API_KEYS` and an optional keys file (see apiKeysFrom). */
export async function loadApiKeys(envValue: string | undefined, file?: string): Promise<ApiKey[]> {
  if (file === undefined) return apiKeysFrom(envValue);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ApiKeysError(`cannot read API keys file ${file}: ${fileErrorReason(error)}`);
  }
  return apiKeysFrom(envValue, { path: file, text });
}
