/**
 * `petstore serve` refused at start by what PETSTORE_DATABASE_URL points at, the real binary:
 * the run's PostgreSQL refusing a wrong password and a database that does not exist, an HTTP
 * server at the port, a port nothing listens at. Each is its exit code and exactly its two
 * stderr lines, PostgreSQL's words and a hint that fits, and never the URL's password.
 */
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestCluster, TEST_CLUSTER_PASSWORD } from "../support/postgres-cluster.js";
import {
  pgBouncerMissing,
  startPgBouncer,
  targetOf as pgBouncerTarget,
} from "../support/pgbouncer.js";
import {
  createTestDatabase,
  postgresAdminUrl,
  type TestDatabase,
} from "../support/postgres-database.js";
import { runCli } from "./support/cli.js";
import { API_KEY } from "./support/servers.js";

const SECRET = "hunter2-very-secret";

let database: TestDatabase;
beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(async () => {
  await database.drop();
});

/** Runs `petstore serve` on `url` to its exit. */
async function serve(url: string) {
  const result = await runCli(["serve", "--port", "0"], {
    env: { PETSTORE_API_KEYS: API_KEY, PETSTORE_DATABASE_URL: url },
  });
  for (const text of [result.stdout, result.stderr]) {
    expect(text).not.toContain(TEST_CLUSTER_PASSWORD);
    expect(text).not.toContain(SECRET);
  }
  return { code: result.code, stdout: result.stdout, lines: result.stderr.split("\n") };
}

/** How the server names the test database's address: `socket DIR`, or `HOST:PORT`; its user. */
function targetOf(url: string): { where: string; address: string; user: string } {
  const { host, port, user = "" } = new pg.Client({ connectionString: url });
  return host.startsWith("/")
    ? { where: `socket ${host}`, address: `${host}/.s.PGSQL.${port}`, user }
    : { where: `${host}:${port}`, address: `${host}:${port}`, user };
}

describe("petstore serve refused by PostgreSQL at start", () => {
  it("exits 2 for a wrong password: PostgreSQL's words, a hint about the URL's user and password", async () => {
    const url = database.url.replace(/:[^:@/]*@/, `:${SECRET}@`);
    const { where, address, user } = targetOf(url);
    const result = await serve(url);
    expect(result.code).toBe(2);
    expect(result.lines).toEqual([
      `error: cannot use PostgreSQL database ${database.name} on ${where}: password authentication failed for user "${user}" (28P01)`,
      `hint: PostgreSQL at ${address} refused user ${user} with that password: check the user and password in PETSTORE_DATABASE_URL (or in PGPASSWORD or ~/.pgpass, when the URL has none)`,
      "",
    ]);
    expect(result.stdout).toBe("");
  });

  it("exits 2 at once for no password where PostgreSQL asks for one, not after its 60 s authentication_timeout", async () => {
    const url = database.url.replace(/:[^:@/]*@/, "@");
    const { address } = targetOf(url);
    const started = Date.now();
    const result = await serve(url);
    // The server had said why at once, then held the half-authenticated socket open until
    // PostgreSQL's authentication_timeout (60 s) let the process exit.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.code).toBe(2);
    expect(result.lines).toEqual([
      `error: cannot use PostgreSQL database ${database.name} on ${targetOf(url).where}: SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string`,
      `hint: PostgreSQL at ${address} asks for a password and none was given: put it in PGPASSWORD or ~/.pgpass (or in PETSTORE_DATABASE_URL)`,
      "",
    ]);
  }, 30_000);

  it("exits 2 for a user that may not create the store's tables: the right to give it", async () => {
    const role = `petstore_user_${randomBytes(4).toString("hex")}`;
    const admin = async (url: string, statements: readonly string[]) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        for (const statement of statements) await client.query(statement);
      } finally {
        await client.end();
      }
    };
    // As PostgreSQL 15 and later make public: only the database's owner creates in it.
    await admin(database.directUrl, [
      `CREATE ROLE ${role} LOGIN PASSWORD '${SECRET}'`,
      "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
    ]);
    try {
      const url = database.url.replace(/\/\/[^:@/]*:[^:@/]*@/, `//${role}:${SECRET}@`);
      const result = await serve(url);
      expect(result.code).toBe(2);
      expect(result.lines).toEqual([
        `error: cannot use PostgreSQL database ${database.name} on ${targetOf(url).where}: permission denied for schema public (42501)`,
        `hint: the user ${role} may not create the store's tables in database ${database.name} (the first start and db copy create them): make it the database's owner (ALTER DATABASE "${database.name}" OWNER TO "${role}"), or GRANT CREATE ON SCHEMA public TO "${role}"`,
        "",
      ]);
    } finally {
      await database.drop();
      await admin(postgresAdminUrl(), [`DROP ROLE ${role}`]);
    }
  });

  it("exits 2 for a database that does not exist: create it, or fix the name", async () => {
    const url = database.url.replace(database.name, "nowhere");
    const { where } = targetOf(url);
    const result = await serve(url);
    expect(result.code).toBe(2);
    expect(result.lines).toEqual([
      `error: cannot use PostgreSQL database nowhere on ${where}: database "nowhere" does not exist (3D000)`,
      "hint: create database nowhere (its user needs to create tables in it), or fix the database name in PETSTORE_DATABASE_URL",
      "",
    ]);
  });
});

describe("petstore serve refused at start by what is not PostgreSQL", () => {
  const servers: net.Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.close();
      await once(server, "close");
    }
  });
  async function listening(server: net.Server): Promise<number> {
    servers.push(server);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return (server.address() as AddressInfo).port;
  }

  it("exits 2 for an HTTP server at the port: check the host and port", async () => {
    const port = await listening(
      http.createServer((_request, response) => response.end("not PostgreSQL")),
    );
    const result = await serve(`postgres://petstore:${SECRET}@127.0.0.1:${port}/inventory`);
    expect(result.code).toBe(2);
    expect(result.lines).toEqual([
      `error: cannot use PostgreSQL database inventory on 127.0.0.1:${port}: Connection terminated unexpectedly`,
      `hint: 127.0.0.1:${port} accepted the connection but did not answer as PostgreSQL: check the host and port in PETSTORE_DATABASE_URL (those of PostgreSQL or of its pooler)`,
      "",
    ]);
  });

  it("exits 3 for a port nothing listens at: is PostgreSQL or its pooler listening there", async () => {
    const server = net.createServer();
    const port = await listening(server);
    servers.pop();
    server.close();
    await once(server, "close");
    const result = await serve(`postgres://petstore:${SECRET}@127.0.0.1:${port}/inventory`);
    expect(result.code).toBe(3);
    expect(result.lines).toEqual([
      `error: cannot use PostgreSQL database inventory on 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
      `hint: nothing listens at 127.0.0.1:${port}: check that PostgreSQL (or its pooler) is running there, and the host and port in PETSTORE_DATABASE_URL`,
      "",
    ]);
  });
});

describe.skipIf(pgBouncerMissing() !== undefined)(
  `petstore serve through a transaction-mode PgBouncer whose PostgreSQL is down${pgBouncerMissing() === undefined ? "" : `: skipped, ${pgBouncerMissing()}`}`,
  () => {
    it("exits 3 with the pooler's words and its hint (the refusal at the first statement crashed it with EPIPE)", async () => {
      const cluster = await startTestCluster();
      const bouncer = await startPgBouncer(pgBouncerTarget(cluster.adminUrl), "transaction", {
        queryWaitTimeoutS: 2,
      });
      try {
        await cluster.stop();
        const result = await serve(bouncer.url);
        expect(result.code).toBe(3);
        expect(result.lines).toHaveLength(3);
        expect(result.lines[0]).toMatch(
          /^error: cannot use PostgreSQL database postgres on 127\.0\.0\.1:\d+: .*(server login has been failing|query_wait_timeout).*\(08P01\)$/,
        );
        expect(result.lines[1]).toMatch(
          /^hint: the pooler at 127\.0\.0\.1:\d+ \(PgBouncer\) answered but could not give a server connection/,
        );
        expect(result.lines[2]).toBe("");
      } finally {
        await bouncer.stop();
        await cluster.destroy();
      }
    });
  },
);
