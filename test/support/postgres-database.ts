/** Databases for tests on the run's PostgreSQL server (see postgres-global-setup.ts). */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

export interface TestDatabase {
  /** postgres://… URL of the new, empty database. */
  url: string;
  name: string;
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

/**
 * The URL of the run's PostgreSQL server as a user who may create databases. Only the vitest
 * projects `postgres` and `e2e` start one: a test file of another project that asks for a
 * database fails here, saying where it belongs, instead of at a connection to nowhere.
 */
export function postgresAdminUrl(): string {
  const url = inject("postgresAdminUrl") as string | undefined;
  if (url === undefined) {
    throw new Error(
      "no PostgreSQL server in this vitest project: list the test file in the `postgres` project of vitest.config.ts",
    );
  }
  return url;
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

/** Creates a new empty database with a random name. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `petstore_test_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  return {
    url: withDatabase(postgresAdminUrl(), name),
    name,
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
