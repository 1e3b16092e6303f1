/** `petstore keys check <file>`: a keys file read as the server reads it, without a server. */
import { Command } from "commander";
import { UsageError } from "../../errors.js";
import type { IoStreams } from "../../output/io-streams.js";
import { writeCheckedKeys, type CheckedKey } from "../../output/keys.js";
import type { Factory } from "../../program/factory.js";
import { readGlobalOptions } from "../../program/global-options.js";

const SERVER_REFUSES =
  "the server would refuse this file: at start it exits 2, on a reload (SIGHUP) it keeps its old keys";

/**
 * Reads `file` with the server's own keys-file loader, so the rules live once: a file the
 * server would refuse is a UsageError (exit 2) with the loader's message naming FILE:LINE,
 * which never quotes a field. A file without any key is refused too, as a reload refuses it.
 * Prints each key's name and scope (stdout: a table on a terminal, TSV piped) and how many of
 * each scope (stderr).
 */
export async function runKeysCheck(file: string, io: IoStreams): Promise<CheckedKey[]> {
  // The one reader of keys files, the server's; loaded only when this command runs.
  const { ApiKeysError, loadApiKeys } = await import("../../api/keys-file.js");
  let keys: CheckedKey[];
  try {
    // Only the file: PETSTORE_API_KEYS is the server's environment, not this shell's.
    keys = (await loadApiKeys(undefined, file)).map(({ name, scope }) => ({ name, scope }));
  } catch (error) {
    if (!(error instanceof ApiKeysError)) throw error;
    throw new UsageError(error.message, SERVER_REFUSES);
  }
  if (keys.length === 0) {
    throw new UsageError(
      `no key in ${file}: the server would refuse it`,
      "add the lines petstore keys create NAME prints on stderr",
    );
  }
  writeCheckedKeys(keys, file, io);
  return keys;
}

/** Defines `keys check`. */
export function keysCheckCommand(factory: Factory): Command {
  return new Command("check")
    .description("check a keys file as the server reads it: key names and scopes, or FILE:LINE")
    .argument("<file>", "the keys file (petstore serve --api-keys-file FILE)")
    .addHelpText(
      "after",
      `
Reads the file with the server's own parser, without a server and without a key. A valid file:
exit 0, each key's name and scope on stdout (a table on a terminal, tab-separated piped; bare
keys as key-1, key-2, …), and
how many of each scope on stderr. A file the server would refuse: exit 2 and the line, as
FILE:LINE, that it cannot use (the line's fields are never printed: a pasted key stays off the
screen). A file without any key is refused too: the server would not start, or not reload, on it.
Digests and keys are never printed. PETSTORE_API_KEYS is not read: only the file is checked.

Check the file before sending the server SIGHUP to load it: systemctl reload petstore under
systemd, else kill -HUP <pid>.

Examples:
  petstore keys check /etc/petstore/keys
  petstore keys check keys.txt | cut -f1`,
    )
    .action(async (file: string, _options: unknown, command: Command) => {
      await runKeysCheck(file, factory.io(readGlobalOptions(command)));
    });
}
