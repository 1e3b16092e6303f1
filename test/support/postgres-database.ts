/**
 * Databases for tests on the run's PostgreSQL server (see postgres-global-setup.ts), reached
 * by a route: `direct` (the server's socket), or through PgBouncer in transaction or session
 * mode. A database is created and dropped directly whatever its route.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { describe, inject, it } from "vitest";
import type { PgBouncerUrls } from "./postgres-global-setup.js";

/** How a test reaches the server: directly, or through one of the run's PgBouncers. */
export const ROUTES = ["direct", "pgbouncer-transaction", "pgbouncer-session"] as const;
export type Route = (typeof ROUTES)[number];

/** A route in a test's name, after the engine's: "", " via PgBouncer (transaction)", … */
export function routeSuffix(route: Route): string {
  return route === "direct" ? "" : ` via PgBouncer (${route.replace("pgbouncer-", "")})`;
}

/**
 * What a wrong password is refused with on `route`: PostgreSQL's words directly, PgBouncer's
 * through it (PgBouncer checks the password itself, from its auth file).
 */
export function passwordRefusal(route: Route): RegExp {
  return route === "direct" ? /password authentication failed/ : /SASL authentication failed/;
}

/**
 * Where the store's messages say the database is, on `route` (a regular expression's source):
 * the run's socket directly, PgBouncer's 127.0.0.1 port through it.
 */
export function whereSource(route: Route): string {
  return route === "direct" ? "socket .*" : String.raw`127\.0\.0\.1:\d+`;
}

export interface TestDatabase {
  /** postgres://… URL of the new, empty database, through its route. */
  url: string;
  /** The same database directly, as the admin URL's user (for what a pooler hides). */
  directUrl: string;
  name: string;
  route: Route;
  /** Drops it, ending any session still on it. */
  drop(): Promise<void>;
}

/** The URL of `database` on the same server, as the same user, as `url`. */
export function withDatabase(url: string, database: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^/]*)\/[^?]*/, `$1/${database}`);
}

/** Runs `sql` on the database at `url` in a session of its own; resolves its rows. */
export async function queryDatabase<R extends pg.QueryResultRow>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** What a test file of a project without PostgreSQL is told. */
const NO_SERVER =
  "no PostgreSQL server in this vitest project: list the test file in the `postgres` project of vitest.config.ts";

/**
 * The URL of the run's PostgreSQL server as a user who may create databases. Only the vitest
 * projects `postgres` and `e2e` start one: a test file of another project that asks for a
 * database fails here, saying where it belongs, instead of at a connection to nowhere.
 */
export function postgresAdminUrl(): string {
  const url = inject("postgresAdminUrl") as string | undefined;
  if (url === undefined) throw new Error(NO_SERVER);
  return url;
}

/** Why `route` cannot be taken in this run (PgBouncer is not installed), or undefined. */
export function routeUnavailable(route: Route): string | undefined {
  if (route === "direct") return undefined;
  return (inject("pgbouncerMissing") as string | null | undefined) ?? undefined;
}

/** The URL of the server's `postgres` database through `route`. */
export function routeUrl(route: Route): string {
  if (route === "direct") return postgresAdminUrl();
  const urls = inject("pgbouncerUrls") as PgBouncerUrls | null | undefined;
  if (urls === undefined) throw new Error(NO_SERVER);
  if (urls === null) throw new Error(`no ${route} route: ${routeUnavailable(route)}`);
  return route === "pgbouncer-transaction" ? urls.transaction : urls.session;
}

/**
 * Registers a suite once for each route, as `body` names it (`name` with the route's suffix:
 * the direct route's name is `name` alone). A route this run cannot take is a skipped suite
 * whose name says why, never a silent pass.
 */
export function forEachRoute(
  name: string,
  body: (route: Route, name: string) => void,
  routes: readonly Route[] = ROUTES,
): void {
  for (const route of routes) {
    const named = `${name}${routeSuffix(route)}`;
    const missing = routeUnavailable(route);
    if (missing === undefined) body(route, named);
    else skippedSuite(`${named}: skipped, ${missing}`);
  }
}

/** A skipped describe named `name`, with a skipped test in it so that reporters list it. */
export function skippedSuite(name: string): void {
  describe.skip(name, () => {
    it("runs through PgBouncer", () => undefined);
  });
}

async function admin<T>(action: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresAdminUrl() });
  await client.connect();
  try {
    return await action(client);
  } finally {
    await client.end();
  }
}

/**
 * Creates a new empty database with a random name, reached through `route` (direct unless
 * said); with `icuLocale` (such as "en-US"), its default collation is that language's, as a
 * hosted database's often is, instead of the run's byte order.
 */
export async function createTestDatabase(
  route: Route = "direct",
  { icuLocale }: { icuLocale?: string } = {},
): Promise<TestDatabase> {
  const url = routeUrl(route);
  const name = `petstore_test_${randomBytes(6).toString("hex")}`;
  const collation =
    icuLocale === undefined
      ? ""
      : ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE '${icuLocale}' LOCALE 'C'`;
  await admin((client) => client.query(`CREATE DATABASE ${name}${collation}`));
  return {
    url: withDatabase(url, name),
    directUrl: withDatabase(postgresAdminUrl(), name),
    name,
    route,
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
