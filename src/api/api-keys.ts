/**
 * The keys-file line `<name> <scope> sha256:<hex>`, shared by `petstore keys create` (which
 * prints it) and the server (which reads it), so both accept exactly the same names.
 */
import { createHash } from "node:crypto";

/** What a key may do: `read` only GET (and HEAD); `write` everything. */
export const KEY_SCOPES = ["read", "write"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/**
 * A key's name: 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit. It
 * goes into log lines and (later) history records, so it holds nothing a log reader or a shell
 * could misread: no spaces, quotes or control characters.
 */
const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The rule above in words, for error messages and help. */
export const KEY_NAME_RULE =
  "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";

/** Whether `name` is a valid key name (see KEY_NAME_RULE). */
export function isKeyName(name: string): boolean {
  return KEY_NAME.test(name);
}

/** Whether `scope` is one of KEY_SCOPES. */
export function isKeyScope(scope: string): scope is KeyScope {
  return (KEY_SCOPES as readonly string[]).includes(scope);
}

/** How a digest is written in a keys file: `sha256:` and 64 hex digits. */
export const KEY_DIGEST_PREFIX = "sha256:";
const KEY_DIGEST = /^sha256:[0-9a-fA-F]{64}$/;

/** The hex digits of a `sha256:<hex>` field (lower-cased), or undefined when malformed. */
export function parseKeyDigest(field: string): string | undefined {
  return KEY_DIGEST.test(field) ? field.slice(KEY_DIGEST_PREFIX.length).toLowerCase() : undefined;
}

/** The SHA-256 of a key, as lower-case hex: what a keys file and the server keep. */
export function keyDigestHex(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** The keys-file line for a key (without a newline). */
export function keysFileLine(name: string, scope: KeyScope, key: string): string {
  return `${name} ${scope} ${KEY_DIGEST_PREFIX}${keyDigestHex(key)}`;
}
