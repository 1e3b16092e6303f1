/**
 * `petstore serve` on PostgreSQL (PETSTORE_DATABASE_URL), the real binary against the run's
 * embedded PostgreSQL: start-up, seeding, start-up failures and their exit codes, and that the
 * URL's password never shows; directly and through PgBouncer in transaction and in session
 * mode (a transaction-mode PgBouncer takes no startup parameter of ours).
 */
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TEST_CLUSTER_PASSWORD } from "../support/postgres-cluster.js";
import {
  createTestDatabase,
  forEachRoute,
  passwordRefusal,
  queryDatabase,
  routeUnavailable,
  skippedSuite,
  type Route,
  whereSource,
  type TestDatabase,
} from "../support/postgres-database.js";
import { tempDir } from "../support/temp-dir.js";
import { runCli } from "./support/cli.js";
import { API_KEY, startServer, type RunningServer, type SeedFileEntry } from "./support/servers.js";

const auth = { authorization: `Bearer ${API_KEY}` };

let database: TestDatabase;
let running: RunningServer[] = [];
/** Each test of the suite: a new database reached through `route`. */
function eachTestOn(route: Route): void {
  beforeEach(async () => {
    database = await createTestDatabase(route);
  });
  afterEach(async () => {
    await Promise.all(running.map((server) => server.stop("SIGKILL")));
    running = [];
    await database.drop();
  });
}

async function serve(args: string[] = [], seed?: readonly SeedFileEntry[]) {
  const server = await startServer({
    databaseUrl: database.url,
    args,
    ...(seed === undefined ? {} : { seed }),
  });
  running.push(server);
  return server;
}

const serveEnv = (more: Record<string, string> = {}) => ({
  PETSTORE_API_KEYS: API_KEY,
  PETSTORE_DATABASE_URL: database.url,
  ...more,
});

forEachRoute("petstore serve on PostgreSQL", (route, name) => {
  describe(name, () => {
    eachTestOn(route);
    const where = whereSource(route);

    it("prints the same listening line, serves --demo pets, and keeps writes across a restart", async () => {
      const first = await serve(["--demo"]);
      expect(first.stdout()).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\/v1\n$/);
      const listed = (await (await fetch(`${first.url}/inventory`, { headers: auth })).json()) as {
        petId: number;
      }[];
      expect(listed.length).toBeGreaterThan(0);
      const patched = await fetch(`${first.url}/inventory/1`, {
        method: "PATCH",
        headers: { ...auth, "content-type": "application/json", "if-match": "*" },
        body: JSON.stringify({ quantity: 4242 }),
      });
      expect(patched.status).toBe(200);
      expect(await first.stop()).toBe(0);

      const second = await serve(["--demo"]);
      const item = await fetch(`${second.url}/inventory/1`, { headers: auth });
      expect(await item.json()).toMatchObject({ petId: 1, quantity: 4242 });
      expect((await fetch(second.url.replace(/\/v1$/, "/healthz"))).status).toBe(200);
      for (const server of [first, second]) {
        expect(server.stderr()).not.toContain(TEST_CLUSTER_PASSWORD);
      }
    });

    it("loads --seed into an empty database (int64 exact), and notes it is ignored on the next start", async () => {
      const seed = [
        { petId: 9223372036854775807n, name: "Max", status: "pending", quantity: 5 },
      ] as const;
      const first = await serve([], [...seed]);
      expect(await (await fetch(`${first.url}/inventory`, { headers: auth })).text()).toBe(
        '[{"petId":9223372036854775807,"quantity":5,"status":"pending"}]',
      );
      const second = await serve([], [...seed]);
      expect(second.stderr()).toMatch(
        new RegExp(
          `"msg":"database petstore_test_\\w+ on ${where} already holds pets; --seed .* ignored`,
        ),
      );
    });

    it("exits 2, never showing the password, when PostgreSQL refuses the password or the database", async () => {
      const wrong = database.url.replace(/:[^:@/]*@/, ":not-the-right-one@");
      const refused = await runCli(["serve", "--port", "0"], {
        env: serveEnv({ PETSTORE_DATABASE_URL: wrong }),
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(passwordRefusal(route));
      expect(refused.stderr).not.toContain("not-the-right-one");
      expect(refused.stderr).not.toContain(TEST_CLUSTER_PASSWORD);

      const missing = await runCli(["serve", "--port", "0"], {
        env: serveEnv({ PETSTORE_DATABASE_URL: database.url.replace(database.name, "nowhere") }),
      });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/database "nowhere" does not exist/);
      expect(missing.stderr).not.toContain(TEST_CLUSTER_PASSWORD);
    });
  });
});

// A transaction-mode PgBouncer with ignore_startup_parameters at its default refuses every
// startup parameter but a few (application_name, client_encoding, …): the server sends none
// of its own, so it starts and serves through one.
const transactionPooler = routeUnavailable("pgbouncer-transaction");
if (transactionPooler !== undefined) {
  skippedSuite(
    `petstore serve through PgBouncer in transaction mode, default ignore_startup_parameters: skipped, ${transactionPooler}`,
  );
} else {
  describe("petstore serve through PgBouncer in transaction mode, default ignore_startup_parameters", () => {
    eachTestOn("pgbouncer-transaction");

    it("starts, writes and reads the write back, through a PgBouncer that refuses lock_timeout at start-up", async () => {
      // This PgBouncer is one with the default: a session asking for lock_timeout is refused.
      const asking = new pg.Client({ connectionString: database.url, lock_timeout: 1000 });
      asking.on("error", () => undefined);
      await expect(asking.connect()).rejects.toThrow(/unsupported startup parameter: lock_timeout/);
      await asking.end().catch(() => undefined);

      const server = await serve([], [{ petId: 1, name: "Rex", status: "available", quantity: 3 }]);
      const written = await fetch(`${server.url}/inventory/1`, {
        method: "PATCH",
        headers: { ...auth, "content-type": "application/json", "if-match": '"3"' },
        body: JSON.stringify({ quantity: 7 }),
      });
      expect(written.status).toBe(200);
      const read = await fetch(`${server.url}/inventory/1`, { headers: auth });
      expect(await read.json()).toMatchObject({ petId: 1, quantity: 7 });
      expect(
        await queryDatabase(database.directUrl, "SELECT quantity FROM pets WHERE id = 1"),
      ).toEqual([{ quantity: 7 }]);
      expect(await server.stop()).toBe(0);
      expect(server.stderr()).not.toMatch(/unsupported startup parameter/);
    });
  });
}

describe("petstore serve on PostgreSQL: settings it refuses", () => {
  eachTestOn("direct");

  it("exits 2 when both --db and PETSTORE_DATABASE_URL are set", async () => {
    const temp = tempDir();
    const result = await runCli(["serve", "--port", "0", "--db", `${temp.dir}/x.db`], {
      env: serveEnv(),
    });
    temp.remove();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("both --db and PETSTORE_DATABASE_URL are set");
    expect(result.stdout).toBe("");
  });

  it("exits 3 naming host and database, never the password, when PostgreSQL is unreachable", async () => {
    const result = await runCli(["serve", "--port", "0"], {
      env: serveEnv({
        PETSTORE_DATABASE_URL: "postgres://petstore:hunter2-very-secret@127.0.0.1:1/inventory",
      }),
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^error: cannot use PostgreSQL database inventory on 127\.0\.0\.1:1: .*ECONNREFUSED/,
    );
    expect(result.stderr).toContain(
      "\nhint: nothing listens at 127.0.0.1:1: check that PostgreSQL (or its pooler) is running there",
    );
    expect(result.stderr).not.toContain("hunter2");
    expect(result.stdout).toBe("");
  });

  it("exits 2 for a URL that is not postgres:// or a bad pool size", async () => {
    const notPostgres = await runCli(["serve", "--port", "0"], {
      env: serveEnv({ PETSTORE_DATABASE_URL: "mysql://root:pw@127.0.0.1/x" }),
    });
    expect(notPostgres.code).toBe(2);
    expect(notPostgres.stderr).toContain("must be a postgres://");
    expect(notPostgres.stderr).not.toContain(":pw@");
    const badPool = await runCli(["serve", "--port", "0"], {
      env: serveEnv({ PETSTORE_DATABASE_POOL_SIZE: "1" }),
    });
    expect(badPool.code).toBe(2);
    expect(badPool.stderr).toContain("PETSTORE_DATABASE_POOL_SIZE must be a whole number");
  });
});
