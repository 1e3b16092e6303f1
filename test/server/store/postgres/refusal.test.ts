/**
 * Start-up refusals read from errors shaped as pg gives them: a DatabaseError's SQLSTATE and
 * message (PostgreSQL's, or PgBouncer 1.18's: 08P01 for every refusal of its own, its words
 * below as it sent them), a Node.js system error's code, or pg's own words.
 */
import { describe, expect, it } from "vitest";
import {
  classifyRefusal,
  isConfigurationRefusal,
  type RefusalKind,
} from "../../../../src/server/store/postgres/refusal.js";

const URL = "postgres://petstore:s3cret-pw@db.internal:6432/inventory";
const SOCKET_URL = "postgres://petstore:s3cret-pw@/inventory?host=/run/postgresql";

/** An error as pg gives it: a DatabaseError (name "error") has a code and a severity. */
const pgError = (message: string, code?: string) =>
  Object.assign(new Error(message), code === undefined ? {} : { code, severity: "FATAL" });

type Case = [message: string, code: string | undefined, kind: RefusalKind];

describe("classifyRefusal while connecting", () => {
  it.each<Case>([
    // PgBouncer (1.18, as observed): SQLSTATE 08P01 for each.
    ["unsupported startup parameter: lock_timeout", "08P01", "startup-parameter"],
    ["unsupported startup parameter: options", "08P01", "startup-parameter"],
    ["unsupported startup parameter in options: search_path", "08P01", "startup-parameter"],
    [
      "unsupported options startup parameter: only '-c config=val' and '--config=val' are allowed",
      "08P01",
      "startup-parameter",
    ],
    ["SASL authentication failed", "08P01", "authentication"],
    ["password authentication failed", "08P01", "authentication"],
    ["no such user", "08P01", "authentication"],
    ["login rejected", "08P01", "authentication"],
    ['password authentication failed for user "petstore"', "08P01", "authentication"],
    ["no such database: inventory", "08P01", "no-database"],
    ['database "inventory" does not exist', "08P01", "no-database"],
    ["invalid command 'BEGIN', use SHOW HELP;", "08P01", "not-postgres"],
    ["no more connections allowed (max_client_conn)", "08P01", "pooler"],
    ["server login has been failing, try again later (server_login_retry)", "08P01", "pooler"],
    [
      'server login has been failing, cached error: database "x" does not exist (server_login_retry)',
      "08P01",
      "pooler",
    ],
    ["query_wait_timeout", "08P01", "pooler"],
    ["pgbouncer cannot connect to server", "08P01", "pooler"],
    ["client_login_timeout (server down)", "08P01", "pooler"],
    ['database "inventory" is disabled', "08P01", "pooler"],
    ["bouncer config error", "08P01", "protocol"],
    // PostgreSQL.
    ['password authentication failed for user "petstore"', "28P01", "authentication"],
    ['role "petstore" does not exist', "28000", "authentication"],
    [
      'no pg_hba.conf entry for host "10.0.0.5", user "petstore", database "inventory", no encryption',
      "28000",
      "authentication",
    ],
    ['database "inventory" does not exist', "3D000", "no-database"],
    ["sorry, too many clients already", "53300", "too-many-connections"],
    ['too many connections for role "petstore"', "53300", "too-many-connections"],
    ["the database system is starting up", "57P03", "not-accepting"],
    ["the database system is shutting down", "57P03", "not-accepting"],
    ["terminating connection due to administrator command", "57P01", "not-accepting"],
    ["connection failure", "08006", "unreachable"],
    // Node.js and pg.
    ["connect ECONNREFUSED 10.0.0.9:6432", "ECONNREFUSED", "refused"],
    ["getaddrinfo ENOTFOUND db.internal", "ENOTFOUND", "host-not-found"],
    ["getaddrinfo EAI_AGAIN db.internal", "EAI_AGAIN", "host-not-found"],
    ["connect ETIMEDOUT 10.0.0.9:6432", "ETIMEDOUT", "timed-out"],
    ["Connection terminated due to connection timeout", undefined, "timed-out"],
    ["timeout expired", undefined, "timed-out"],
    ["connect EHOSTUNREACH 10.0.0.9:6432", "EHOSTUNREACH", "unreachable"],
    ["read ECONNRESET", "ECONNRESET", "unreachable"],
    ["The server does not support SSL connections", undefined, "no-tls"],
    ["Connection terminated unexpectedly", undefined, "not-postgres"],
    ["received invalid response: 48", undefined, "not-postgres"],
    [
      "SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string",
      undefined,
      "authentication",
    ],
  ])("%s (%s) is %s", (message, code, kind) => {
    expect(classifyRefusal(pgError(message, code), URL)?.kind).toBe(kind);
  });

  it("is configuration (exit 2) when the URL or the pooler's settings must change, unavailable (exit 3) when a later try may do", () => {
    const failure = (message: string, code?: string) =>
      classifyRefusal(pgError(message, code), URL)?.failure;
    for (const [message, code] of [
      ["unsupported startup parameter: lock_timeout", "08P01"],
      ['password authentication failed for user "petstore"', "28P01"],
      ["SASL authentication failed", "08P01"],
      ['database "inventory" does not exist', "3D000"],
      ["no such database: inventory", "08P01"],
      ["invalid command 'BEGIN', use SHOW HELP;", "08P01"],
      ["Connection terminated unexpectedly", undefined],
    ] as const) {
      expect(failure(message, code), message).toBe("configuration");
    }
    for (const [message, code] of [
      ["no more connections allowed (max_client_conn)", "08P01"],
      ["server login has been failing, try again later (server_login_retry)", "08P01"],
      ["query_wait_timeout", "08P01"],
      ["sorry, too many clients already", "53300"],
      ["the database system is starting up", "57P03"],
      ["connect ECONNREFUSED 10.0.0.9:6432", "ECONNREFUSED"],
      ["getaddrinfo ENOTFOUND db.internal", "ENOTFOUND"],
      ["Connection terminated due to connection timeout", undefined],
    ] as const) {
      expect(failure(message, code), message).toBe("unavailable");
    }
  });

  it("says what was refused, naming the address, the user, the parameter or the database, never the password", () => {
    const hint = (message: string, code?: string, url = URL) =>
      classifyRefusal(pgError(message, code), url)?.hint;
    expect(hint("unsupported startup parameter: lock_timeout", "08P01")).toBe(
      "the pooler at db.internal:6432 (PgBouncer) does not accept the startup parameter lock_timeout: remove it from PETSTORE_DATABASE_URL, or list it in ignore_startup_parameters in pgbouncer.ini (which drops it)",
    );
    expect(hint("unsupported startup parameter: options", "08P01")).toBe(
      "the pooler at db.internal:6432 (PgBouncer) does not accept the startup parameter options: remove it from PETSTORE_DATABASE_URL (or PGOPTIONS), or list it in ignore_startup_parameters in pgbouncer.ini (which drops it)",
    );
    expect(hint('password authentication failed for user "petstore"', "28P01")).toBe(
      "PostgreSQL at db.internal:6432 refused user petstore with that password: check the user and password in PETSTORE_DATABASE_URL (or in PGPASSWORD or ~/.pgpass, when the URL has none)",
    );
    expect(
      hint(
        'no pg_hba.conf entry for host "10.0.0.5", user "petstore", database "inventory", no encryption',
        "28000",
      ),
    ).toBe(
      "no rule of pg_hba.conf at db.internal:6432 lets user petstore connect to database inventory from this host: add one, or check the user and database in PETSTORE_DATABASE_URL",
    );
    expect(hint("SASL authentication failed", "08P01")).toBe(
      "the pooler at db.internal:6432 (PgBouncer) refused user petstore with that password: check the user and password in PETSTORE_DATABASE_URL (or in PGPASSWORD or ~/.pgpass, when the URL has none)",
    );
    expect(hint("SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string")).toBe(
      "PostgreSQL at db.internal:6432 asks for a password and none was given: put it in PGPASSWORD or ~/.pgpass (or in PETSTORE_DATABASE_URL)",
    );
    expect(hint('database "inventory" does not exist', "3D000")).toBe(
      "create database inventory (its user needs to create tables in it), or fix the database name in PETSTORE_DATABASE_URL",
    );
    // A pooler passes on the server's refusal of the database its entry names.
    expect(hint('database "stock" does not exist', "08P01")).toBe(
      "create database stock (its user needs to create tables in it), or fix the database name in PETSTORE_DATABASE_URL or the pooler's [databases] entry for it",
    );
    expect(hint("no such database: inventory", "08P01")).toBe(
      "the pooler at db.internal:6432 (PgBouncer) has no database inventory: fix the database name in PETSTORE_DATABASE_URL, or add inventory to the [databases] of pgbouncer.ini",
    );
    expect(hint("Connection terminated unexpectedly")).toBe(
      "db.internal:6432 accepted the connection but did not answer as PostgreSQL: check the host and port in PETSTORE_DATABASE_URL (those of PostgreSQL or of its pooler)",
    );
    expect(
      hint(
        "invalid command 'BEGIN', use SHOW HELP;",
        "08P01",
        URL.replace("/inventory", "/pgbouncer"),
      ),
    ).toBe(
      "database pgbouncer at db.internal:6432 is PgBouncer's admin console, not a PostgreSQL database: name a database it pools in PETSTORE_DATABASE_URL",
    );
    expect(
      hint("server login has been failing, try again later (server_login_retry)", "08P01"),
    ).toBe(
      "the pooler at db.internal:6432 (PgBouncer) answered but could not give a server connection: check that PostgreSQL behind it is up and lets the pooler log in (the pooler's log says why), then try again",
    );
    expect(hint("no more connections allowed (max_client_conn)", "08P01")).toBe(
      "the pooler at db.internal:6432 (PgBouncer) answered but takes no more clients (max_client_conn): try again when others disconnect, or raise its max_client_conn",
    );
    expect(hint("sorry, too many clients already", "53300")).toBe(
      "PostgreSQL at db.internal:6432 has no connection to spare (max_connections, or a connection limit of the role or database): try again when others close, or lower PETSTORE_DATABASE_POOL_SIZE where instances share it",
    );
    expect(hint("the database system is starting up", "57P03")).toBe(
      "PostgreSQL at db.internal:6432 is starting up, shutting down or in recovery: try again in a moment",
    );
    expect(hint("connect ECONNREFUSED 10.0.0.9:6432", "ECONNREFUSED")).toBe(
      "nothing listens at db.internal:6432: check that PostgreSQL (or its pooler) is running there, and the host and port in PETSTORE_DATABASE_URL",
    );
    expect(hint("connect ENOENT /run/postgresql/.s.PGSQL.5432", "ENOENT", SOCKET_URL)).toBe(
      "nothing listens at /run/postgresql/.s.PGSQL.5432: check that PostgreSQL (or its pooler) is running there, and the host and port in PETSTORE_DATABASE_URL",
    );
    expect(hint("getaddrinfo ENOTFOUND db.internal", "ENOTFOUND")).toBe(
      "the host name db.internal is not found (DNS): check the host in PETSTORE_DATABASE_URL",
    );
    expect(hint("Connection terminated due to connection timeout")).toBe(
      "db.internal:6432 did not answer in time: check that this host can reach it (a firewall may drop the connection) and that PostgreSQL (or its pooler) is up",
    );
    expect(hint("connect ECONNREFUSED ::1:5432", "ECONNREFUSED", "postgres://u:pw@[::1]/db")).toBe(
      "nothing listens at [::1]:5432: check that PostgreSQL (or its pooler) is running there, and the host and port in PETSTORE_DATABASE_URL",
    );
  });

  it("leaves alone what is no refusal to connect", () => {
    for (const error of [
      pgError('relation "pets" does not exist', "42P01"),
      pgError("canceling statement due to lock timeout", "55P03"),
      new Error("database schema version 99 is newer than this petstore supports (11)"),
      "a string",
      undefined,
    ]) {
      expect(classifyRefusal(error, URL)).toBeUndefined();
    }
  });
});

describe("classifyRefusal of a user that may not create the store's tables", () => {
  it.each([
    [
      "permission denied for schema public",
      'the user petstore may not create the store\'s tables in database inventory (the first start and db copy create them): make it the database\'s owner (ALTER DATABASE "inventory" OWNER TO "petstore"), or GRANT CREATE ON SCHEMA public TO "petstore"',
    ],
    [
      "must be owner of table inventory_changes",
      'the user petstore does not own the store\'s tables, which an upgrade alters: start this version once as the user that created them, or make petstore their owner (ALTER TABLE … OWNER TO "petstore", for each)',
    ],
    [
      'permission denied for database "inventory"',
      'the user petstore may not connect to database inventory: GRANT CONNECT ON DATABASE "inventory" TO "petstore"',
    ],
    [
      "permission denied for table pets",
      "the user petstore lacks a right the store needs (PostgreSQL's message names which): grant it, or use the user that owns the store's tables",
    ],
  ])(
    "%s: configuration (exit 2), connecting and on an open session (db copy), with the right to give",
    (message, hint) => {
      for (const phase of ["connecting", "connected"] as const) {
        expect(classifyRefusal(pgError(message, "42501"), URL, phase)).toEqual({
          kind: "privilege",
          failure: "configuration",
          hint,
        });
      }
    },
  );
});

describe("classifyRefusal on an open session", () => {
  it("reads a pooler's refusals at the first statement (transaction mode), and leaves a lost connection to the caller", () => {
    const connected = (message: string, code?: string) =>
      classifyRefusal(pgError(message, code), URL, "connected");
    expect(connected("query_wait_timeout", "08P01")).toMatchObject({
      kind: "pooler",
      failure: "unavailable",
    });
    expect(connected("invalid command 'BEGIN', use SHOW HELP;", "08P01")).toMatchObject({
      kind: "not-postgres",
      failure: "configuration",
    });
    for (const [message, code] of [
      ["Connection terminated unexpectedly", undefined],
      ["read ECONNRESET", "ECONNRESET"],
      ["terminating connection due to administrator command", "57P01"],
      ["query_timeout", "08P01"],
    ] as const) {
      expect(connected(message, code), message).toBeUndefined();
    }
  });
});

describe("isConfigurationRefusal", () => {
  it("is credentials, a missing database or a pooler's 08P01 that retrying will not mend; not a pool error, a lost session or another 08xxx", () => {
    for (const [message, code] of [
      ["unsupported startup parameter: lock_timeout", "08P01"],
      ["SASL authentication failed", "08P01"],
      ["no such database: inventory", "08P01"],
      ['database "inventory" does not exist', "08P01"],
      ["invalid command 'BEGIN', use SHOW HELP;", "08P01"],
      ['password authentication failed for user "petstore"', "28P01"],
      ['database "inventory" does not exist', "3D000"],
    ] as const) {
      expect(isConfigurationRefusal(pgError(message, code)), message).toBe(true);
    }
    for (const [message, code] of [
      ["query_wait_timeout", "08P01"],
      ["server login has been failing, try again later (server_login_retry)", "08P01"],
      ["query_timeout", "08P01"],
      ["connection failure", "08006"],
      ["Connection terminated unexpectedly", undefined],
      ["connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED"],
    ] as const) {
      expect(isConfigurationRefusal(pgError(message, code)), message).toBe(false);
    }
    expect(isConfigurationRefusal(undefined)).toBe(false);
  });
});
