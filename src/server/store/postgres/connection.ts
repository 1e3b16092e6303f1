/**
 * Connecting to PostgreSQL: the pool's settings (int8 as BigInt, pipelining), what each of our
 * transactions sets for itself (durability, lock time-out), which errors mean "the database
 * cannot be reached", and the database named for messages without its password.
 *
 * Nothing here depends on the session, so a pooler in transaction mode (PgBouncer, as hosted
 * PostgreSQL puts in front) serves us as PostgreSQL itself does: no startup parameter but
 * `application_name`, which every pooler passes; no named prepared statement (a pooler hands
 * the server connection to another client after each transaction, and PgBouncer before 1.21
 * keeps none); settings per transaction (SET LOCAL), never per session; only
 * transaction-scoped advisory locks; no LISTEN, no temporary table.
 */
import pg from "pg";

type GetTypeParser = pg.CustomTypesConfig["getTypeParser"];

/** Parses int8 into BigInt (pg's default is a string) for this pool's clients only. */
const getTypeParser: GetTypeParser = (oid, format) => {
  if (oid === pg.types.builtins.INT8 && format !== "binary")
    return (value: string) => BigInt(value);
  // pg-types declares its parsers as returning `any`: they return what each type parses to.
  return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
};

const types: pg.CustomTypesConfig = { getTypeParser };

export interface PoolSettings {
  /** Connections at most, shared by reads and the one writing at a time. */
  poolSize: number;
  /** How long opening a connection may take before the database counts as unreachable. */
  connectTimeoutMs: number;
  /**
   * How long a statement may go unanswered before its connection counts as lost (pg's
   * query_timeout: the connection is closed, the statement fails as unreachable). None for a
   * pool whose statements may rightly run long (a migration, `db copy`).
   */
  statementTimeoutMs?: number | undefined;
}

type ConnectCallback = ((err: Error) => void) | ((err: null, client: pg.Client) => void);

/**
 * pg's Client, but one that closes its socket when connecting fails. The pool drops such a
 * client without ending it, and a server left in the middle of authentication (it asked for a
 * password the URL, PGPASSWORD and ~/.pgpass do not give) holds the socket open until its
 * authentication_timeout (60 s by default): `serve` had said why it cannot start at once, and
 * then not exited for a minute.
 */
export class ClosingClient extends pg.Client {
  override connect(): Promise<pg.Client>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.Client> | undefined {
    const connecting = super.connect().catch(async (error: unknown) => {
      await this.end().catch(() => undefined);
      throw error;
    });
    if (callback === undefined) return connecting;
    connecting.then(
      (client) => {
        (callback as (err: null, client: pg.Client) => void)(null, client);
      },
      (error: unknown) => {
        (callback as (err: Error) => void)(
          error instanceof Error ? error : new Error(String(error)),
        );
      },
    );
    return undefined;
  }
}

/** A pool on `url` that keeps no state in its sessions (see above). */
export function createPool(url: string, settings: PoolSettings): pg.Pool {
  return new pg.Pool({
    Client: ClosingClient,
    connectionString: url,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    query_timeout: settings.statementTimeoutMs,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: "petstore",
    // Statements sent together go out together (a batch's BEGIN, claims and locks; its
    // write and COMMIT): one round trip for each group, not one per statement.
    pipeline: true,
    types,
  });
}

/**
 * Opens a transaction on `client` with what it sets for itself alone, whatever the server's or
 * the database's default: read committed, so that each statement sees what committed before
 * it (a write locks its pets, then reads their refs and what moved since; under repeatable
 * read, a default some hosted databases set, a pet another instance wrote meanwhile failed the
 * write with 40001); how long a statement waits for a lock another session holds (a row
 * another instance writes, the migration or seed lock) before failing with 55P03; and that
 * COMMIT returns only once the WAL is flushed (a 200 is on disk). The two statements are
 * pipelined: a caller may send its next ones without waiting, and they follow in order.
 */
export async function beginTransaction(
  client: pg.ClientBase,
  lockTimeoutMs: number,
): Promise<void> {
  await Promise.all([
    client.query("BEGIN ISOLATION LEVEL READ COMMITTED"),
    client.query({
      text: "SELECT set_config('lock_timeout', $1, true), set_config('synchronous_commit', 'on', true)",
      values: [`${Math.round(lockTimeoutMs)}ms`],
    }),
  ]);
}

/** How long the store's statements wait: for a row lock (lock_timeout), and for an answer. */
export interface Waits {
  /** How long a statement waits for one lock another session holds, then fails (55P03). */
  lockTimeoutMs: number;
  /** How long opening a connection, or a statement's own work, may take. */
  connectTimeoutMs: number;
}

/**
 * How long a statement that waits for up to `locks` row locks (one after another, each at
 * most the lock time-out) may go unanswered before the database counts as unreachable.
 */
export function statementBound(waits: Waits, locks = 1): number {
  return locks * waits.lockTimeoutMs + waits.connectTimeoutMs;
}

/**
 * A statement with its own bound on how long it may go unanswered (pg's query_timeout, which
 * @types/pg does not declare on a query's config; its clock starts when it is queued), in
 * place of the pool's.
 */
export function timedStatement(text: string, values: unknown[], timeoutMs: number): pg.QueryConfig {
  const statement: pg.QueryConfig & { query_timeout: number } = {
    text,
    values,
    query_timeout: timeoutMs,
  };
  return statement;
}

/** setTimeout's longest delay: a statement given it as its bound has, in effect, none. */
const NO_BOUND_MS = 2 ** 31 - 1;

/**
 * Takes the transaction-scoped advisory lock `key` inside the open transaction on `client`,
 * however long another instance holds it (a migration rebuilding an index, a seed of many
 * pets, take what they take): the transaction's lock_timeout and statement_timeout (which a
 * hosted database may set) are lifted for this one wait and put back after it, and the
 * statement has no bound on its answer, whatever its pool's.
 */
export async function waitForAdvisoryLock(client: pg.ClientBase, key: string): Promise<void> {
  const [settings] = (
    await client.query<{ lock: string; statement: string }>(
      "SELECT current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement",
    )
  ).rows;
  await client.query(
    "SELECT set_config('lock_timeout', '0', true), set_config('statement_timeout', '0', true)",
  );
  await client.query(timedStatement("SELECT pg_advisory_xact_lock($1)", [key], NO_BOUND_MS));
  await client.query(
    "SELECT set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true)",
    [settings?.lock ?? "0", settings?.statement ?? "0"],
  );
}

/**
 * Asks the database one trivial question, answered within `timeoutMs` or counted unreachable.
 * A pooler in front (PgBouncer) accepts the connection itself and holds a statement until it
 * can log in to the database (its query_wait_timeout: 120 s by default), so a database that is
 * gone behind it would otherwise not be told for minutes.
 */
export async function probe(pool: pg.Pool, timeoutMs: number): Promise<void> {
  // Unanswered, it fails as pg words it ("Query read timeout"): reasonOf says what that means.
  await pool.query(timedStatement("SELECT 1", [], timeoutMs));
}

/** A client checked out of the pool for a transaction, and how to give it back. */
export interface CheckedOut {
  client: pg.PoolClient;
  /** Gives the client back to the pool; closes it instead when `failure` says it failed. */
  release: (failure?: Error) => void;
}

/**
 * Checks a client out of `pool` for a transaction. pg emits `error` on a checked-out client
 * whose session ends between our statements (PostgreSQL stopping; a transaction-mode pooler
 * refusing at the first statement, with no server to give it); with no listener that would
 * end the process. The statement in flight, or the next, rejects with that error all the same.
 */
export async function checkOut(pool: pg.Pool): Promise<CheckedOut> {
  const client = await pool.connect();
  const ignore = () => undefined;
  client.on("error", ignore);
  return {
    client,
    release: (failure) => {
      // A client going back to the pool drops the listener (each checkout adds one); one
      // that is closed keeps it, for an error its closing may still emit.
      if (failure === undefined) client.off("error", ignore);
      client.release(failure);
    },
  };
}

/** Where a URL points, for messages: `database D on HOST:PORT` (never user or password). */
export function describeDatabase(url: string): string {
  const params = new pg.Client({ connectionString: url });
  const where = params.host.startsWith("/")
    ? `socket ${params.host}`
    : `${params.host.includes(":") ? `[${params.host}]` : params.host}:${params.port}`;
  return `database ${params.database ?? "(default)"} on ${where}`;
}

/** Node.js system errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOENT",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** SQLSTATEs of a server going away or not accepting sessions yet. */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);

/** pg's own messages for a connection it lost or could not open in time. */
const LOST_CONNECTION =
  /connection terminated|timeout exceeded when trying to connect|not queryable|query read timeout/i;

/** Whether `error` means the database cannot be reached now (a retry later may succeed). */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith("08")) {
      return true;
    }
  }
  return LOST_CONNECTION.test(error.message);
}

/**
 * Whether `error` is PostgreSQL refusing a statement for lack of disk space: `disk_full`
 * (53100, "could not extend file …: No space left on device"), the transaction rolled back.
 * Only that one of class 53: 53000 and 53200 (memory) are not about storage, and 53300 (too
 * many connections) is the database not taking sessions, `unavailable` above. A full WAL
 * directory is not 53100 either: PostgreSQL stops (PANIC), which reads as unreachable.
 */
export function isDiskFull(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "53100";
}

/** Whether `error` is PostgreSQL giving up a row lock (lock_timeout) or breaking a deadlock. */
export function isLockFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "55P03" || isDeadlock(error);
}

/** Whether `error` is PostgreSQL aborting a transaction to break a deadlock (40P01). */
export function isDeadlock(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "40P01";
}

/** A short reason for an error, with the password of `url` (if any) masked wherever it shows. */
export function reasonOf(error: unknown, url: string): string {
  const message = error instanceof Error ? error.message || String(error) : String(error);
  // pg's own words for a statement left unanswered past its bound (query_timeout).
  if (/^query read timeout$/i.test(message)) {
    return "no answer in time (query read timeout): the database is gone, or a pooler in front of it has no server connection free";
  }
  const code = (error as { code?: unknown } | null)?.code;
  const text =
    typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
  return maskPassword(text, url);
}

/**
 * Replaces the URL's password, should it appear in `text`, with `***`: as it is and as the URL
 * writes it (percent-encoded), wherever it stands alone, not run into letters or digits. So
 * a short password ("pg", "a") masks itself, not every word that contains it; a password that
 * is a word of the message ("postgres") is masked there too.
 */
export function maskPassword(text: string, url: string): string {
  let password: string | undefined;
  try {
    password = new pg.Client({ connectionString: url }).password ?? undefined;
  } catch {
    return text;
  }
  if (!password) return text;
  const forms = [...new Set([password, encodeURIComponent(password)])]
    .sort((a, b) => b.length - a.length)
    .map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const alone = new RegExp(`(?<![A-Za-z0-9_])(?:${forms.join("|")})(?![A-Za-z0-9_])`, "g");
  return text.replace(alone, "***");
}
