/** `petstore keys create <name> [--scope read|write]`: a new API key and its keys-file line. */
import { randomBytes } from "node:crypto";
import { Command, Option } from "commander";
import {
  KEY_NAME_RULE,
  KEY_SCOPES,
  isKeyName,
  keysFileLine,
  type KeyScope,
} from "../../api/api-keys.js";
import { UsageError } from "../../errors.js";
import type { IoStreams } from "../../output/io-streams.js";
import { writeNewKey } from "../../output/keys.js";
import type { Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

/** Bytes of randomness in a new key: 256 bits, twice the least the product asks for. */
export const KEY_BYTES = 32;

export interface KeysCreateOptions {
  scope: KeyScope;
}

/**
 * Makes a new random key and prints it once on stdout, and the line for the server's keys
 * file (name, scope, the key's SHA-256) on stderr. It talks to no server: the key exists
 * only here until an operator adds the line to the keys file. The key is base64url, so it
 * needs no quoting in a shell or an HTTP header.
 */
export function runKeysCreate(
  name: string,
  options: KeysCreateOptions,
  io: IoStreams,
  random: (size: number) => Buffer = randomBytes,
): void {
  if (!isKeyName(name)) {
    throw new UsageError(
      `invalid key name ${JSON.stringify(name)}: a name is ${KEY_NAME_RULE}`,
      "name the key after who or what uses it: petstore keys create cron-report --scope read",
    );
  }
  const key = random(KEY_BYTES).toString("base64url");
  writeNewKey(key, keysFileLine(name, options.scope, key), io);
}

/** Defines `keys create`. */
export function keysCreateCommand(factory: Factory): Command {
  return new Command("create")
    .description("make a new API key: the key on stdout, its keys-file line on stderr")
    .argument("<name>", `the key's name in the keys file and the server's logs (${KEY_NAME_RULE})`)
    .addOption(
      new Option("--scope <scope>", "read: GET only; write: everything")
        .choices(KEY_SCOPES)
        .default("write"),
    )
    .addHelpText(
      "after",
      `
The key (256 random bits, base64url) is printed once, on stdout: store it where its user reads
it (PETSTORE_API_KEY_FILE names such a file). The line on stderr, "<name> <scope> sha256:<hex>",
goes into the server's keys file (petstore serve --api-keys-file FILE), which so holds only the
key's SHA-256. Check the file with petstore keys check FILE, then send the server SIGHUP to load
it without a restart: systemctl reload petstore under systemd, else kill -HUP <pid>. Needs no
server and no key.

Examples:
  petstore keys create cron-report --scope read > cron-report.key
  petstore keys create till-3 > till-3.key`,
    )
    .action((name: string, options: KeysCreateOptions, command: Command) => {
      runKeysCreate(name, options, factory.io(readGlobalOptions(command)));
    });
}
