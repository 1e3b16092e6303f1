/**
 * Why PostgreSQL, or a pooler in front of it, would not give us a session: the error pg gives
 * (a SQLSTATE, a Node.js system error code, or pg's own words) read as a kind of refusal, with
 * the failure it is (`configuration`: the URL or the pooler's settings must change;
 * `unavailable`: a later try may succeed) and a hint that fits. Pure: nothing here connects.
 * `petstore serve` (store-choice.ts openStore) and `db copy` (copy/copy-store.ts) word their
 * start-up failures with it; the message stays PostgreSQL's or the pooler's own (reasonOf).
 *
 * PgBouncer words its refusals in its messages alone: up to 1.18 (Debian's) every one is
 * SQLSTATE 08P01 and FATAL ("unsupported startup parameter: X", "no such database: X",
 * "SASL authentication failed", "query_wait_timeout", …), and a refusal of the server's it
 * passes on ("database "x" does not exist") is 08P01 too; later versions keep the server's
 * SQLSTATE for those. So 08P01 at start-up is a refusal to read by its message, not a
 * database out of reach.
 */
import pg from "pg";
import type { OperatorFailure } from "../../../api/operator-error.js";

/** What was refused, or why no session could be had. */
export type RefusalKind =
  /** A pooler does not accept a startup parameter the client sent (PgBouncer). */
  | "startup-parameter"
  /** Wrong password, unknown user, no password given, or no pg_hba.conf entry. */
  | "authentication"
  /** No such database on the server, or none of that name in the pooler's settings. */
  | "no-database"
  /** Something answers at the address, but not as PostgreSQL (or PgBouncer's admin console). */
  | "not-postgres"
  /** PgBouncer answered but could give no server connection (or takes no more clients). */
  | "pooler"
  /** PostgreSQL has no connection to spare (53300). */
  | "too-many-connections"
  /** PostgreSQL is starting up, shutting down or in recovery (57P01, 57P02, 57P03). */
  | "not-accepting"
  /** Nothing listens at the address (ECONNREFUSED, or no socket file: ENOENT). */
  | "refused"
  /** The host name does not resolve (ENOTFOUND, EAI_AGAIN). */
  | "host-not-found"
  /** No answer in time (ETIMEDOUT, pg's connect time-out). */
  | "timed-out"
  /** No route to the host, a reset or broken connection, another 08xxx SQLSTATE. */
  | "unreachable"
  /** A protocol-level refusal (08P01) this file knows no better words for. */
  | "protocol"
  /** The user may not create or alter the store's tables (42501: the first start, an upgrade). */
  | "privilege"
  /** The URL asks for TLS (sslmode, ssl) and the server or pooler does not take it. */
  | "no-tls";

export interface Refusal {
  kind: RefusalKind;
  failure: Extract<OperatorFailure, "configuration" | "unavailable">;
  hint: string;
}

/**
 * When the error came: while the session was being opened, or from a statement on a session
 * that was open. A connection closed without a word while opening means that what answered is
 * not PostgreSQL (PostgreSQL and PgBouncer always say why); on an open session it is a
 * connection lost, which the caller words itself. A pooler in transaction mode hands out a
 * server connection at the first statement, so its pool errors come `connected` too.
 */
export type RefusalPhase = "connecting" | "connected";

/** Where the URL points and as whom, for hints (which never hold its password). */
interface Target {
  /** `HOST:PORT` (an IPv6 address in brackets), or the socket file `DIR/.s.PGSQL.PORT`. */
  address: string;
  host: string;
  socket: boolean;
  user: string;
  database: string;
}

function targetOf(url: string): Target {
  const params = new pg.Client({ connectionString: url });
  const socket = params.host.startsWith("/");
  const host = params.host.includes(":") ? `[${params.host}]` : params.host;
  return {
    address: socket ? `${params.host}/.s.PGSQL.${params.port}` : `${host}:${params.port}`,
    host: params.host,
    socket,
    user: params.user ?? "",
    database: params.database ?? "",
  };
}

/** PgBouncer's words for "I answered, but have no server connection for you" (08P01). */
const POOL_ERRORS = [
  /^server login has been failing/,
  /^query_wait_timeout$/,
  /^pgbouncer cannot connect to server$/,
  /^client_login_timeout \(server down\)$/,
  /^bouncer resources exhaustion$/,
  /^pause failed$/,
];

/** PgBouncer refusing the client's credentials (08P01); the server's own are 28P01/28000. */
const POOLER_AUTHENTICATION =
  /^(?:password authentication failed|SASL authentication failed|no such user|"trust" authentication failed|PAM authentication failed|client selected an invalid SASL authentication mechanism|empty password returned by client)$/;

/** PgBouncer's auth_type/auth_hba_file refusing this client (08P01). */
const POOLER_HBA =
  /^(?:login rejected|unix socket login rejected|certificate authentication failed)$/;

/** pg's words when the server asked for a password and none was given. */
const NO_PASSWORD = /client password must be a (?:non-empty )?string|^Password must be a string$/;

/** pg's words for a reply it cannot read as PostgreSQL's protocol. */
const NOT_PROTOCOL =
  /^received invalid response: |^Received unexpected \w+ message from backend\.$|^Unknown authenticationOk message type/;

/** pg's and Node's words for a connection not made in time. */
const TIMED_OUT =
  /^Connection terminated due to connection timeout$|^timeout expired$|^timeout exceeded when trying to connect$/;

const HOST_NOT_FOUND = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "EAI_NONAME"]);
const NO_ROUTE = new Set(["EHOSTUNREACH", "ENETUNREACH", "EHOSTDOWN"]);
const LOST = new Set(["ECONNRESET", "EPIPE"]);
const NOT_ACCEPTING = new Set(["57P01", "57P02", "57P03"]);

const URL_VARIABLE = "PETSTORE_DATABASE_URL";

/**
 * The refusal `error` is, from a session to the database of `url`, with its kind, failure and
 * hint; undefined for an error that is no refusal to connect (a statement failing on its own,
 * a schema newer than this code, …), or, `connected`, for a connection lost, which the caller
 * words itself.
 */
export function classifyRefusal(
  error: unknown,
  url: string,
  phase: RefusalPhase = "connecting",
): Refusal | undefined {
  if (!(error instanceof Error)) return undefined;
  const target = targetOf(url);
  return (
    pgBouncerRefusal(error, target) ??
    privilegeRefusal(error, target) ??
    (phase === "connecting" ? connectionRefusal(error, target) : undefined)
  );
}

/**
 * The user may not do what the store needs (42501): connect to the database, create its
 * tables at the first start or `db copy`, alter them in an upgrade. A right to give once, not
 * a database out of reach; the hint by what PostgreSQL says was denied.
 */
function privilegeRefusal(error: Error, target: Target): Refusal | undefined {
  if (codeOf(error) !== "42501") return undefined;
  const user = quoteIdentifier(target.user);
  const database = quoteIdentifier(target.database);
  const hint = /permission denied for database/i.test(error.message)
    ? `the user ${target.user} may not connect to database ${target.database}: GRANT CONNECT ON DATABASE ${database} TO ${user}`
    : /must be owner of/i.test(error.message)
      ? `the user ${target.user} does not own the store's tables, which an upgrade alters: start this version once as the user that created them, or make ${target.user} their owner (ALTER TABLE … OWNER TO ${user}, for each)`
      : /permission denied for schema/i.test(error.message)
        ? `the user ${target.user} may not create the store's tables in database ${target.database} (the first start and db copy create them): make it the database's owner (ALTER DATABASE ${database} OWNER TO ${user}), or GRANT CREATE ON SCHEMA public TO ${user}`
        : `the user ${target.user} lacks a right the store needs (PostgreSQL's message names which): grant it, or use the user that owns the store's tables`;
  return { kind: "privilege", failure: "configuration", hint };
}

/** A name as an SQL identifier, quoted: `"petstore"`, `"my ""odd"" db"`. */
function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Whether `error` is a refusal of this session that retrying will not mend: credentials
 * (28P01, 28000), no such database (3D000), or a pooler's 08P01 about a startup parameter,
 * credentials, a database or its admin console. Class 08 is "connection exception", but such
 * an 08P01 is no database out of reach: openPostgresStore does not count it unreachable.
 * A pooler's other 08P01s (no server connection for us, a query_timeout on an open session)
 * are not these.
 */
export function isConfigurationRefusal(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = codeOf(error);
  if (code === "28P01" || code === "28000" || code === "3D000") return true;
  if (code !== "08P01") return false;
  const kind = pgBouncerKind(error.message);
  return kind !== undefined && kind !== "pooler";
}

function codeOf(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

/** The kind of a PgBouncer message, whatever the phase (before its own checks of the code). */
function pgBouncerKind(message: string): RefusalKind | undefined {
  if (/^unsupported (?:startup parameter|options startup parameter)/.test(message)) {
    return "startup-parameter";
  }
  if (/^no more connections allowed \(max_client_conn\)$/.test(message)) return "pooler";
  if (/^database ".*" is disabled$/.test(message)) return "pooler";
  if (POOL_ERRORS.some((pattern) => pattern.test(message))) return "pooler";
  if (POOLER_AUTHENTICATION.test(message) || POOLER_HBA.test(message)) return "authentication";
  if (/^password authentication failed for user /.test(message)) return "authentication";
  if (/^no such database: /.test(message) || /^database ".*" does not exist$/.test(message)) {
    return "no-database";
  }
  if (/^invalid command '.*', use SHOW HELP;$/s.test(message)) return "not-postgres";
  return undefined;
}

/** A refusal in PgBouncer's words (SQLSTATE 08P01), in either phase. */
function pgBouncerRefusal(error: Error, target: Target): Refusal | undefined {
  if (codeOf(error) !== "08P01") return undefined;
  const message = error.message;
  const pooler = `the pooler at ${target.address} (PgBouncer)`;
  switch (pgBouncerKind(message)) {
    case "startup-parameter":
      return startupParameter(message, pooler);
    case "pooler":
      return { kind: "pooler", failure: "unavailable", hint: poolerHint(message, pooler) };
    case "authentication":
      if (POOLER_HBA.test(message)) {
        return authentication(hbaHint(target, "PgBouncer (auth_type, auth_hba_file)"));
      }
      // "… for user "x"" is the server's, passed on: it refused the pooler's login as x.
      return authentication(
        message.includes(" for user ")
          ? `${passwordHint(target, `PostgreSQL behind ${pooler}`)}; and the password the pooler logs in with (its auth_file)`
          : passwordHint(target, pooler),
      );
    case "no-database":
      return noDatabase(message, target);
    case "not-postgres":
      return adminConsole(target);
    default:
      return undefined;
  }
}

function startupParameter(message: string, pooler: string): Refusal {
  const inOptions = /^unsupported startup parameter in options: (.+)$/.exec(message)?.[1];
  const parameter = /^unsupported startup parameter: (.+)$/.exec(message)?.[1] ?? "options";
  const hint =
    inOptions === undefined
      ? `${pooler} does not accept the startup parameter ${parameter}: remove it from ${URL_VARIABLE}${parameter === "options" ? " (or PGOPTIONS)" : ""}, or list it in ignore_startup_parameters in pgbouncer.ini (which drops it)`
      : `${pooler} does not accept ${inOptions} in the startup options: remove it from the options in ${URL_VARIABLE} (or PGOPTIONS), or list it in ignore_startup_parameters in pgbouncer.ini (which drops it)`;
  return { kind: "startup-parameter", failure: "configuration", hint };
}

function poolerHint(message: string, pooler: string): string {
  if (message.startsWith("no more connections allowed")) {
    return `${pooler} answered but takes no more clients (max_client_conn): try again when others disconnect, or raise its max_client_conn`;
  }
  const disabled = /^database "(.*)" is disabled$/.exec(message)?.[1];
  if (disabled !== undefined) {
    return `${pooler} answered but database ${disabled} is disabled there: ENABLE it on PgBouncer's admin console, then try again`;
  }
  return `${pooler} answered but could not give a server connection: check that PostgreSQL behind it is up and lets the pooler log in (the pooler's log says why), then try again`;
}

function authentication(hint: string): Refusal {
  return { kind: "authentication", failure: "configuration", hint };
}

function passwordHint(
  target: Target,
  by = `PostgreSQL at ${target.address}`,
  withPassword = true,
): string {
  return `${by} refused user ${target.user}${withPassword ? " with that password" : ""}: check the user and password in ${URL_VARIABLE} (or in PGPASSWORD or ~/.pgpass, when the URL has none)`;
}

function hbaHint(target: Target, rules: string): string {
  return `no rule of ${rules} at ${target.address} lets user ${target.user} connect to database ${target.database} from this host: add one, or check the user and database in ${URL_VARIABLE}`;
}

function noDatabase(message: string, target: Target): Refusal {
  const pooled = /^no such database: (.+)$/.exec(message)?.[1];
  if (pooled !== undefined) {
    return {
      kind: "no-database",
      failure: "configuration",
      hint: `the pooler at ${target.address} (PgBouncer) has no database ${pooled}: fix the database name in ${URL_VARIABLE}, or add ${pooled} to the [databases] of pgbouncer.ini`,
    };
  }
  const name = /^database "(.*)" does not exist$/.exec(message)?.[1] ?? target.database;
  const where =
    name === target.database
      ? `the database name in ${URL_VARIABLE}`
      : `the database name in ${URL_VARIABLE} or the pooler's [databases] entry for it`;
  return {
    kind: "no-database",
    failure: "configuration",
    hint: `create database ${name} (its user needs to create tables in it), or fix ${where}`,
  };
}

function adminConsole(target: Target): Refusal {
  return {
    kind: "not-postgres",
    failure: "configuration",
    hint: `database ${target.database} at ${target.address} is PgBouncer's admin console, not a PostgreSQL database: name a database it pools in ${URL_VARIABLE}`,
  };
}

/** A refusal while opening the session, in PostgreSQL's, pg's or Node's words. */
function connectionRefusal(error: Error, target: Target): Refusal | undefined {
  const code = codeOf(error);
  const message = error.message;
  const unavailable = (kind: RefusalKind, hint: string): Refusal => ({
    kind,
    failure: "unavailable",
    hint,
  });
  if (code === "28P01") return authentication(passwordHint(target));
  if (code === "28000") {
    return /pg_hba\.conf/.test(message)
      ? authentication(hbaHint(target, "pg_hba.conf"))
      : authentication(passwordHint(target, undefined, false));
  }
  if (NO_PASSWORD.test(message)) {
    return authentication(
      `PostgreSQL at ${target.address} asks for a password and none was given: put it in PGPASSWORD or ~/.pgpass (or in ${URL_VARIABLE})`,
    );
  }
  if (code === "3D000") return noDatabase(message, target);
  if (code === "08P01" && target.database === "pgbouncer" && message === "not allowed") {
    return adminConsole(target);
  }
  if (/does not support SSL connections/i.test(message)) {
    return {
      kind: "no-tls",
      failure: "configuration",
      hint: `${target.address} does not take TLS, and ${URL_VARIABLE} asks for it (sslmode or ssl): turn TLS on there, or take sslmode out of the URL where the network between is trusted`,
    };
  }
  if (message === "Connection terminated unexpectedly" || NOT_PROTOCOL.test(message)) {
    return {
      kind: "not-postgres",
      failure: "configuration",
      hint: `${target.address} accepted the connection but did not answer as PostgreSQL: check the host and port in ${URL_VARIABLE} (those of PostgreSQL or of its pooler)`,
    };
  }
  if (code === "53300") {
    return unavailable(
      "too-many-connections",
      `PostgreSQL at ${target.address} has no connection to spare (max_connections, or a connection limit of the role or database): try again when others close, or lower PETSTORE_DATABASE_POOL_SIZE where instances share it`,
    );
  }
  if (code !== undefined && NOT_ACCEPTING.has(code)) {
    return unavailable(
      "not-accepting",
      `PostgreSQL at ${target.address} is starting up, shutting down or in recovery: try again in a moment`,
    );
  }
  if (code === "ECONNREFUSED" || (code === "ENOENT" && target.socket)) {
    return unavailable(
      "refused",
      `nothing listens at ${target.address}: check that PostgreSQL (or its pooler) is running there, and the host and port in ${URL_VARIABLE}`,
    );
  }
  if (code !== undefined && HOST_NOT_FOUND.has(code)) {
    return unavailable(
      "host-not-found",
      code === "EAI_AGAIN"
        ? `the host name ${target.host} could not be looked up now (DNS): try again, or check the host in ${URL_VARIABLE}`
        : `the host name ${target.host} is not found (DNS): check the host in ${URL_VARIABLE}`,
    );
  }
  if (code === "ETIMEDOUT" || TIMED_OUT.test(message)) {
    return unavailable(
      "timed-out",
      `${target.address} did not answer in time: check that this host can reach it (a firewall may drop the connection) and that PostgreSQL (or its pooler) is up`,
    );
  }
  if (code !== undefined && NO_ROUTE.has(code)) {
    return unavailable(
      "unreachable",
      `this host has no route to ${target.address}: check the network, and the host in ${URL_VARIABLE}`,
    );
  }
  if (code === "08P01") {
    return {
      kind: "protocol",
      failure: "configuration",
      hint: `PostgreSQL, or a pooler in front of it, at ${target.address} refused the session: its message says why (a pooler's log says more)`,
    };
  }
  if (code !== undefined && (LOST.has(code) || code.startsWith("08"))) {
    return unavailable(
      "unreachable",
      `check that PostgreSQL is running at ${target.address} and that this host can reach it`,
    );
  }
  return undefined;
}
