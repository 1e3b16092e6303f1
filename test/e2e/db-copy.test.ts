/**
 * `petstore db copy` with real processes: a real server writes a SQLite store (an int64 pet
 * id, changes with reasons, a keyed PATCH), stops; the real `db copy` moves the file into a
 * new PostgreSQL database; a real server on PostgreSQL then shows the same inventory, history
 * and feed through the real CLI, replays the keyed PATCH without a new change, and numbers the
 * next change past every copied one. A second copy into the now full database is refused,
 * leaving it as it was; the URL's password never shows. The database is reached directly and
 * through PgBouncer in transaction and in session mode, by the copy and the server alike.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_CLUSTER_PASSWORD } from "../support/postgres-cluster.js";
import {
  createTestDatabase,
  forEachRoute,
  queryDatabase,
  type TestDatabase,
} from "../support/postgres-database.js";
import { tempDir } from "../support/temp-dir.js";
import { runCli, type CliResult } from "./support/cli.js";
import { API_KEY, startServer, type RunningServer, type SeedFileEntry } from "./support/servers.js";

const BIG = "9007199254740993";
const SEED: SeedFileEntry[] = [
  { petId: BigInt(BIG), name: "Big", status: "available", quantity: 5 },
  { petId: 1, name: "Rex", status: "available", quantity: 3 },
  { petId: 2, name: "Tom", status: "pending", quantity: 0 },
];
const PET_IDS = [BIG, "1", "2"];

const cli = (args: string[], server: RunningServer) =>
  runCli(args, { env: { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: API_KEY } });

/** PATCHes pet 1 to 11 with one Idempotency-Key: status, body, ETag and the replay header. */
async function keyedPatch(server: RunningServer) {
  const response = await fetch(`${server.url}/inventory/1`, {
    method: "PATCH",
    headers: {
      authorization: `Bearer ${API_KEY}`,
      "content-type": "application/json",
      "idempotency-key": "move-to-postgres-1",
      "x-change-reason": "recount",
    },
    body: JSON.stringify({ quantity: 11 }),
  });
  return {
    status: response.status,
    body: await response.text(),
    etag: response.headers.get("etag"),
    replayed: response.headers.get("idempotent-replayed"),
  };
}

/** What the CLI shows of a store: the list, every pet's history, and the whole feed. */
async function shown(server: RunningServer) {
  const ok = (result: CliResult) => {
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    return result.stdout;
  };
  const history: Record<string, string> = {};
  for (const id of PET_IDS) {
    history[id] = ok(await cli(["inventory", "history", id, "--json", "--limit", "100"], server));
  }
  return {
    list: ok(await cli(["inventory", "list", "--json"], server)),
    history,
    feed: ok(await cli(["inventory", "changes", "--json", "--limit", "1000"], server)),
  };
}

/** Everything the database holds, table by table (rows sorted). */
async function dump(url: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of [
    "pets",
    "orders",
    "inventory_changes",
    "idempotency_records",
    "inventory_revision",
    "petstore_schema",
  ]) {
    const rows = await queryDatabase(url, `SELECT * FROM ${table}`);
    out[table] = rows.map((row) => JSON.stringify(row)).sort();
  }
  return out;
}

forEachRoute(
  "petstore db copy: a SQLite store moved to PostgreSQL, real processes",
  (route, name) => {
    describe(name, () => {
      const temp = tempDir();
      const dbPath = join(temp.dir, "petstore.db");
      let database: TestDatabase;
      let onSqlite: Awaited<ReturnType<typeof shown>>;
      let firstAnswer: Awaited<ReturnType<typeof keyedPatch>>;
      let copy: CliResult;
      let postgres: RunningServer | undefined;

      beforeAll(async () => {
        const sqlite = await startServer({ dbPath, seed: SEED });
        try {
          const set = await cli(["inventory", "set", BIG, "9", "--reason", "counted"], sqlite);
          expect(set.code).toBe(0);
          expect((await cli(["inventory", "adjust", "1", "-1"], sqlite)).code).toBe(0);
          firstAnswer = await keyedPatch(sqlite);
          expect(firstAnswer).toMatchObject({ status: 200, replayed: null });
          onSqlite = await shown(sqlite);
        } finally {
          expect(await sqlite.stop()).toBe(0);
        }
        database = await createTestDatabase(route);
        copy = await runCli(["db", "copy", "--from", dbPath], {
          env: { PETSTORE_DATABASE_URL: database.url },
        });
      });

      afterAll(async () => {
        await postgres?.stop();
        // Undefined when the SQLite half failed before it was made.
        await (database as TestDatabase | undefined)?.drop();
        temp.remove();
      });

      it("prints the counts of both sides and what to do next, and never the password", () => {
        expect(copy.stderr).toBe("");
        expect(copy.code).toBe(0);
        const lines = copy.stdout.split("\n");
        expect(lines.slice(0, 5)).toEqual([
          "                     source  copied",
          "pets                      3       3",
          "orders                    0       0",
          "history records           6       6",
          "idempotency records       3       3",
        ]);
        expect(lines[5]).toMatch(/^units in stock\s+20\s+20$/);
        expect(lines[6]).toMatch(
          new RegExp(`^done: copied ${dbPath} into database ${database.name} on .*after seq 6$`),
        );
        expect(copy.stdout + copy.stderr).not.toContain(TEST_CLUSTER_PASSWORD);
      });

      it("serves the same inventory, history and feed from PostgreSQL, int64 id exact", async () => {
        postgres = await startServer({ databaseUrl: database.url });
        const onPostgres = await shown(postgres);
        expect(onPostgres).toEqual(onSqlite);
        expect(onPostgres.list).toContain(`"petId": ${BIG}`);
        expect(onPostgres.history[BIG]).toContain('"reason": "counted"');
      });

      it("replays the keyed PATCH without a new change, and numbers the next change past the copy", async () => {
        postgres ??= await startServer({ databaseUrl: database.url });
        expect(await keyedPatch(postgres)).toEqual({ ...firstAnswer, replayed: "true" });
        const history = await cli(
          ["inventory", "history", "1", "--json", "--limit", "100"],
          postgres,
        );
        expect(history.stdout).toBe(onSqlite.history["1"]);

        // A feed cursor taken on SQLite (seq 6) is valid here: the next change comes after it.
        expect((await cli(["inventory", "set", "2", "4"], postgres)).code).toBe(0);
        const after = await cli(["inventory", "changes", "--after", "6", "--json"], postgres);
        expect(after.stdout.trim().split("\n")).toHaveLength(1);
        expect(JSON.parse(after.stdout)).toMatchObject({
          seq: 7,
          petId: 2,
          previous: 0,
          quantity: 4,
        });
      });

      it("refuses to copy into the database again (exit 2), leaving it as it was", async () => {
        const before = await dump(database.url);
        const again = await runCli(["db", "copy", "--from", dbPath], {
          env: { PETSTORE_DATABASE_URL: database.url },
        });
        expect(again.code).toBe(2);
        expect(again.stdout).toBe("");
        expect(again.stderr).toMatch(
          new RegExp(
            `^error: database ${database.name} on .* is not empty: it holds 3 pets, 0 orders, \\d+ history records and \\d+ idempotency records`,
          ),
        );
        expect(again.stderr).not.toContain(TEST_CLUSTER_PASSWORD);
        expect(await dump(database.url)).toEqual(before);
      });
    });
  },
);
