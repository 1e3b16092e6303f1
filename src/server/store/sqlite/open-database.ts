/**
 * Every SQLite file the server and the db verbs open goes through here, so that the one failure
 * a fresh install can have reads as what it is: better-sqlite3's compiled part missing because
 * npm did not run its install script (npm 11 warns "install scripts not yet covered by
 * allowScripts"), instead of the bindings package's list of a dozen paths it tried.
 */
import Database from "better-sqlite3";

/** The start of the message the `bindings` package throws when no compiled addon is there. */
const NO_BINDING = "Could not locate the bindings file";

/** Whether `error` is better-sqlite3 finding no compiled addon. */
export function isMissingBinding(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith(NO_BINDING);
}

/** What to say instead, with what to do. */
export const MISSING_BINDING_MESSAGE =
  "better-sqlite3 has no compiled part: npm did not run its install script when petstore was installed; install it again with npm install -g --allow-scripts=better-sqlite3 <the petstore-inventory tarball> (it compiles better-sqlite3, about a minute)";

/** `new Database(path, options)`, its missing addon said in words. */
export function openDatabase(path: string, options?: Database.Options): Database.Database {
  try {
    return new Database(path, options);
  } catch (error) {
    if (isMissingBinding(error)) throw new Error(MISSING_BINDING_MESSAGE, { cause: error });
    throw error;
  }
}
