/**
 * openDatabase: a fresh install whose npm did not run better-sqlite3's install script gets a
 * message that says so and what to run, not the bindings package's list of paths; anything
 * else passes through as SQLite said it.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  isMissingBinding,
  MISSING_BINDING_MESSAGE,
  openDatabase,
} from "../../../../src/server/store/sqlite/open-database.js";
import { tempDir } from "../../../support/temp-dir.js";

/** The first lines of what `bindings` threw on an install without the build (seen 2026-11-26). */
const SEEN =
  "Could not locate the bindings file. Tried:\n" +
  " → /tmp/gprefix/lib/node_modules/petstore-inventory/node_modules/better-sqlite3/build/better_sqlite3.node\n" +
  " → /tmp/gprefix/lib/node_modules/petstore-inventory/node_modules/better-sqlite3/build/Release/better_sqlite3.node";

const temp = tempDir("petstore-open-database-");
const KEPT: object[] = [];
afterAll(() => {
  temp.remove();
});

describe("openDatabase", () => {
  it("knows the missing compiled part by the message the bindings package throws", () => {
    expect(isMissingBinding(new Error(SEEN))).toBe(true);
    expect(isMissingBinding(new Error("SQLITE_CANTOPEN: unable to open database file"))).toBe(
      false,
    );
    expect(isMissingBinding("Could not locate the bindings file")).toBe(false);
  });

  it("says what to run, without the paths", () => {
    expect(MISSING_BINDING_MESSAGE).toContain("npm did not run its install script");
    expect(MISSING_BINDING_MESSAGE).toContain("--allow-scripts=better-sqlite3");
    expect(MISSING_BINDING_MESSAGE).not.toContain("→");
  });

  it("opens a file as better-sqlite3 does, and passes SQLite's own refusals through", () => {
    const db = openDatabase(join(temp.dir, "a.db"));
    const statement = db.prepare("SELECT 1 AS one");
    // Kept, as every connection and statement is (sqlite/connection.ts: Node.js 24).
    KEPT.push(db, statement);
    expect(statement.get()).toEqual({ one: 1 });
    db.close();
    expect(() => openDatabase(join(temp.dir, "no-such-dir", "b.db"))).toThrow(
      /unable to open database file|directory does not exist/,
    );
  });
});
