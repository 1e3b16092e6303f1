import { describe, expect, it } from "vitest";
import {
  describeDatabase,
  isLockFailure,
  isUnreachable,
  maskPassword,
  reasonOf,
} from "../../../../src/server/store/postgres/connection.js";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("PostgreSQL connection errors", () => {
  it("counts refused, lost and shut-down connections as unreachable, and nothing else", () => {
    for (const error of [
      withCode("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"),
      withCode("connect ENOENT /run/postgresql/.s.PGSQL.5432", "ENOENT"),
      withCode("terminating connection due to administrator command", "57P01"),
      withCode("the database system is starting up", "57P03"),
      withCode("connection failure", "08006"),
      new Error("Connection terminated unexpectedly"),
      new Error("timeout exceeded when trying to connect"),
    ]) {
      expect(isUnreachable(error), error.message).toBe(true);
    }
    for (const error of [
      withCode('password authentication failed for user "x"', "28P01"),
      withCode('database "x" does not exist', "3D000"),
      withCode('new row violates check constraint "pets_quantity_check"', "23514"),
      "a string",
      undefined,
    ]) {
      expect(isUnreachable(error)).toBe(false);
    }
  });

  it("counts a lock time-out and a deadlock as lock failures", () => {
    expect(isLockFailure(withCode("canceling statement due to lock timeout", "55P03"))).toBe(true);
    expect(isLockFailure(withCode("deadlock detected", "40P01"))).toBe(true);
    expect(isLockFailure(withCode("syntax error", "42601"))).toBe(false);
    expect(isLockFailure(null)).toBe(false);
  });

  it("names host and database, never the password, and masks it wherever it shows", () => {
    const url = "postgres://u:pa55word@[::1]:6543/stock";
    expect(describeDatabase(url)).toBe("database stock on [::1]:6543");
    expect(maskPassword("oops pa55word here", url)).toBe("oops *** here");
    expect(maskPassword("nothing", "postgres://u@h/db")).toBe("nothing");
    expect(reasonOf(withCode("boom pa55word", "XX000"), url)).toBe("boom *** (XX000)");
    expect(reasonOf("plain", url)).toBe("plain");
  });

  it("masks a short password where it stands alone, not inside every word that holds it", () => {
    const url = "postgres://u:a@h/db";
    expect(maskPassword("connection to database at h failed: a", url)).toBe(
      "connection to database at h failed: ***",
    );
    expect(maskPassword('password authentication failed for "a"', url)).toBe(
      'password authentication failed for "***"',
    );
  });

  it("masks the password as the URL writes it too (percent-encoded), and one full of pattern characters", () => {
    const url = "postgres://u:p%40ss%2Fw.rd*@h/db";
    expect(maskPassword("bad URL postgres://u:p%40ss%2Fw.rd*@h/db", url)).toBe(
      "bad URL postgres://u:***@h/db",
    );
    expect(maskPassword("said p@ss/w.rd* twice: p@ss/w.rd*", url)).toBe("said *** twice: ***");
    expect(maskPassword("p@ss/wXrd", url)).toBe("p@ss/wXrd");
  });
});
