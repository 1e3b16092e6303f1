/**
 * `db copy` against the run's PostgreSQL (test/support/postgres-global-setup.ts): a SQLite
 * store written through the store itself is copied and compared row by row; the PostgreSQL
 * store then carries on from it (replays, refs, the feed's seqs); targets that are not empty,
 * a count that differs and sources it cannot copy leave the target as it was; and the URL's
 * password shows in no output of the command. The target is reached directly and through
 * PgBouncer in transaction and in session mode; a source it cannot copy, directly only (no
 * connection is made).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OperatorError } from "../../src/api/operator-error.js";
import { copyStore } from "../../src/server/store/copy/copy-store.js";
import { OLDEST_COPIED_VERSION } from "../../src/server/store/copy/sqlite-source.js";
import { MIGRATIONS } from "../../src/server/store/sqlite/migrations.js";
import { POSTGRES_MIGRATIONS } from "../../src/server/store/postgres/migrations.js";
import { openPostgresStore } from "../../src/server/store/postgres/store.js";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import type {
  BatchEvaluation,
  SeedPet,
  Store,
  StoredResponse,
  WriteOutcome,
} from "../../src/server/store/store.js";
import type { Order } from "../../src/api/types.js";
import { runFake } from "../commands/fake-deps.js";
import { TEST_CLUSTER_PASSWORD } from "../support/postgres-cluster.js";
import {
  createTestDatabase,
  forEachRoute,
  passwordRefusal,
  queryDatabase,
  type Route,
  type TestDatabase,
} from "../support/postgres-database.js";
import { MAX_ID } from "../support/ids.js";
import { tempDir } from "../support/temp-dir.js";

/** Beyond 2^53: a double would make it 9007199254740992. */
const BIG = 9007199254740993n;
const T0 = Date.UTC(2026, 0, 1);

const render = (outcome: WriteOutcome): StoredResponse =>
  outcome.kind === "updated"
    ? { status: 200, body: `q=${outcome.item.quantity}`, etag: `"${outcome.item.quantity}"` }
    : { status: outcome.kind === "not_found" ? 404 : 412, body: outcome.kind, etag: null };

const renderBatch = (evaluation: BatchEvaluation): StoredResponse => ({
  status: evaluation.rejected ? 409 : 200,
  body: evaluation.results.map((result) => result.outcome).join(),
  etag: null,
});

/** The keyed PATCH the source store answered, replayed on the target. */
const KEYED = { owner: "digest-of-till-3", key: "key-1", fingerprint: "fp-1", at: T0, render };

const author = (requestId: string, reason: string | null = null) => ({
  at: T0 + 1_000,
  keyName: "till-3",
  requestId,
  reason,
});

function seedPets(extra: number): SeedPet[] {
  return [
    {
      id: BIG,
      name: "Big",
      status: "available",
      quantity: 5,
      photoUrls: ["https://example.test/big.jpg"],
      tags: [{ id: 9223372036854775806n, name: "huge" }],
      category: { id: 9007199254740995n, name: "Dogs" },
    },
    { id: MAX_ID, name: "Max", status: "pending", quantity: 0, photoUrls: [], tags: [] },
    ...Array.from({ length: extra }, (_, index): SeedPet => ({
      id: BigInt(index + 1),
      name: `pet ${index + 1}`,
      status: "available",
      quantity: index % 50,
      photoUrls: [],
      tags: [],
    })),
  ];
}

const ORDERS: Order[] = [
  {
    id: 1n,
    petId: 1n,
    quantity: 2,
    shipDate: "2026-01-02T00:00:00.000Z",
    status: "placed",
    complete: false,
  },
  {
    id: 9007199254740997n,
    petId: BIG,
    quantity: 1,
    shipDate: "2026-01-03T00:00:00.000Z",
    status: "delivered",
    complete: true,
  },
];

/**
 * A SQLite store as a server leaves it: seeded (int64 ids, an order), changed with authors,
 * reasons and a key, a batch with refs, and `keyed` more keyed writes (idempotency records).
 */
async function makeSqliteStore(path: string, { pets = 3, keyed = 0 } = {}): Promise<void> {
  const store = openSqliteStore(path);
  try {
    await store.seedIfEmpty(seedPets(pets), ORDERS, { at: T0, reason: "seed pets.json" });
    expect(
      await store.updateQuantity(BIG, 9, {
        author: author("req-1", "counted"),
        idempotency: KEYED,
      }),
    ).toMatchObject({ kind: "updated" });
    await store.applyBatch(
      {
        changes: [
          { petId: 1n, delta: 2, ref: "sale-1" },
          { petId: BIG, delta: -1, ref: "sale-2" },
        ],
        atomic: false,
        dryRun: false,
      },
      {
        author: author("req-2"),
        idempotency: { ...KEYED, key: "batch-1", render: renderBatch },
      },
    );
    await Promise.all(
      Array.from({ length: keyed }, (_, index) =>
        store.updateQuantity(BigInt((index % pets) + 1), index % 7, {
          author: author(`req-k${index}`),
          idempotency: { ...KEYED, key: `k-${index}`, fingerprint: `f-${index}`, at: T0 + index },
        }),
      ),
    );
  } finally {
    await store.close();
  }
}

type Rows = Record<string, unknown>[];

/** Values as text (int64 exact), booleans and nulls as they are. */
function normalized(rows: Rows): Rows {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([column, value]) => [
        column,
        typeof value === "bigint" || typeof value === "number" ? String(value) : value,
      ]),
    ),
  );
}

/** Every copied table of the SQLite file, in PostgreSQL's shape. */
function sqliteRows(path: string): Record<string, Rows> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.defaultSafeIntegers(true);
  const all = (sql: string) => db.prepare(sql).all() as Rows;
  // A file before schema version 13 keeps no seq with its records.
  const seq = db
    .prepare("SELECT 1 FROM pragma_table_info('idempotency_records') WHERE name = 'seq'")
    .get()
    ? "seq"
    : "NULL AS seq";
  try {
    return {
      pets: normalized(
        all(`SELECT id, name, status, quantity, category_id, category_name, photo_urls, tags
             FROM pets ORDER BY id`),
      ),
      orders: normalized(
        all(`SELECT id, pet_id, quantity, ship_date, status, complete = 1 AS complete
             FROM orders ORDER BY id`),
      ).map((row) => ({ ...row, complete: row.complete === "1" })),
      history: normalized(
        all(`SELECT id, id AS seq, pet_id, at, previous, quantity, key_name, request_id, reason, ref
             FROM inventory_changes ORDER BY id`),
      ),
      idempotency: normalized(
        all(`SELECT owner, key, fingerprint, created_at, status, body, etag, ${seq}
             FROM idempotency_records ORDER BY owner, key`),
      ),
    };
  } finally {
    db.close();
  }
}

/** The same tables of the PostgreSQL database (pg gives int8 as text). */
async function postgresRows(url: string): Promise<Record<string, Rows>> {
  const all = async (sql: string) => normalized(await queryDatabase(url, sql));
  return {
    pets: await all(`SELECT id, name, status, quantity, category_id, category_name, photo_urls, tags
      FROM pets ORDER BY id`),
    orders: await all(
      "SELECT id, pet_id, quantity, ship_date, status, complete FROM orders ORDER BY id",
    ),
    history: await all(`SELECT id, seq, pet_id, at, previous, quantity, key_name, request_id,
      reason, ref FROM inventory_changes ORDER BY id`),
    idempotency: await all(`SELECT owner, key, fingerprint, created_at, status, body, etag, seq
      FROM idempotency_records ORDER BY owner COLLATE "C", key COLLATE "C"`),
  };
}

/** Everything a database holds: every table's rows (sorted), and its sequences. */
async function dump(url: string): Promise<Record<string, string[]>> {
  const tables = await queryDatabase<{ name: string }>(
    url,
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
  );
  const out: Record<string, string[]> = {};
  for (const { name } of tables) {
    const rows = await queryDatabase(url, `SELECT * FROM ${name}`);
    out[name] = rows.map((row) => JSON.stringify(row)).sort();
  }
  const sequences = await queryDatabase(url, "SELECT sequencename, last_value FROM pg_sequences");
  out["(sequences)"] = sequences.map((row) => JSON.stringify(row)).sort();
  return out;
}

/** The copy's failure, as a OperatorError (fails the test when it succeeds). */
async function copyFailure(from: string, url: string): Promise<OperatorError> {
  const error: unknown = await copyStore({ from, url }).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(OperatorError);
  return error as OperatorError;
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

let temp: ReturnType<typeof tempDir>;
let database: TestDatabase;
const stores: Store[] = [];
const openTarget = async () => {
  const store = await openPostgresStore(database.url);
  stores.push(store);
  return store;
};
/** Each test of the suite: a temporary directory and a new database reached through `route`. */
function eachTestOn(route: Route): void {
  beforeEach(async () => {
    temp = tempDir();
    database = await createTestDatabase(route);
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await database.drop();
    temp.remove();
  });
}

// Into a database reached directly, and through PgBouncer in transaction and in session mode.
forEachRoute("db copy into PostgreSQL", (route, name) => {
  describe(name, () => {
    eachTestOn(route);

    describe("db copy: what arrives", () => {
      it("copies every row of every table exactly, int64 ids included, in one run", async () => {
        const from = join(temp.dir, "petstore.db");
        // More rows than a page holds (5,000; idempotency records 500): pages meet at their ends.
        await makeSqliteStore(from, { pets: 12_000, keyed: 1_100 });
        const before = sha256(from);
        const source = sqliteRows(from);

        const report = await copyStore({ from, url: database.url });

        expect(await postgresRows(database.url)).toEqual(source);
        const [big] = await queryDatabase<{ id: string }>(
          database.url,
          "SELECT id::text FROM pets WHERE name = 'Big'",
        );
        expect(big?.id).toBe("9007199254740993");
        const count = (rows: Rows | undefined) => BigInt(rows?.length ?? 0);
        const units = (source.pets ?? []).reduce(
          (sum, row) => sum + BigInt(row.quantity as string),
          0n,
        );
        expect(report.counts).toEqual([
          { label: "pets", source: count(source.pets), copied: count(source.pets) },
          { label: "orders", source: 2n, copied: 2n },
          {
            label: "history records",
            source: count(source.history),
            copied: count(source.history),
          },
          {
            label: "idempotency records",
            source: count(source.idempotency),
            copied: count(source.idempotency),
          },
          { label: "units in stock", source: units, copied: units },
        ]);
        expect(count(source.history)).toBeGreaterThan(12_000);
        expect(count(source.idempotency)).toBe(1_102n);
        expect(report.lastSeq).toBe(BigInt(source.history?.at(-1)?.seq as string));
        expect(report.target).toMatch(new RegExp(`^database ${database.name} on `));
        // Read-only: the source file is as it was.
        expect(sha256(from)).toBe(before);
      });

      it("leaves a PostgreSQL store that carries on: same reads, replays, refs, and larger seqs", async () => {
        const from = join(temp.dir, "petstore.db");
        await makeSqliteStore(from, { pets: 5 });
        const sqlite = openSqliteStore(from);
        const expected = {
          list: await sqlite.listInventory(),
          history: await sqlite.listChanges(BIG, 100),
          feed: await sqlite.listFeed(0n, 1000),
          orders: await sqlite.listOrders(),
          pet: await sqlite.getPet(BIG),
          // A replay writes nothing: the keyed write's answer with the seq it held as of.
          replay: await sqlite.updateQuantity(BIG, 9, { idempotency: KEYED }),
        };
        await sqlite.close();
        expect(expected.replay).toMatchObject({
          kind: "replayed",
          seq: expect.any(BigInt) as unknown,
        });

        const { lastSeq } = await copyStore({ from, url: database.url });
        const store = await openTarget();

        // The same entries as of the same seq: the copy keeps every seq.
        expect(await store.listInventory()).toEqual(expected.list);
        expect(await store.listChanges(BIG, 100)).toEqual(expected.history);
        expect(await store.listFeed(0n, 1000)).toEqual(expected.feed);
        expect(await store.listOrders()).toEqual(expected.orders);
        expect(await store.getPet(BIG)).toEqual(expected.pet);
        // The keyed write again: its stored answer, nothing written.
        expect(await store.updateQuantity(BIG, 9, { idempotency: KEYED })).toEqual({
          kind: "replayed",
          response: { status: 200, body: "q=9", etag: '"9"' },
          seq: expected.replay.kind === "replayed" ? expected.replay.seq : "none",
        });
        expect(
          await store.updateQuantity(BIG, 9, { idempotency: { ...KEYED, fingerprint: "other" } }),
        ).toEqual({ kind: "key_reused" });
        // A ref applied on SQLite is applied already.
        const again = await store.applyBatch({
          changes: [{ petId: 1n, delta: 2, ref: "sale-1" }],
          atomic: false,
          dryRun: false,
        });
        expect(again).toMatchObject({ kind: "evaluated", results: [{ outcome: "duplicate" }] });
        expect(await store.listFeed(lastSeq, 10)).toEqual([]);

        // The next change gets a seq (and an id) past every copied one: a cursor stays valid.
        expect(await store.updateQuantity(2n, 40)).toMatchObject({ kind: "updated" });
        const next = await store.listFeed(lastSeq, 10);
        expect(next).toHaveLength(1);
        expect(next[0]).toMatchObject({ seq: lastSeq + 1n, petId: 2n, quantity: 40 });
        const [ids] = await queryDatabase<{ id: string; revision: string }>(
          database.url,
          `SELECT (SELECT max(id) FROM inventory_changes)::text AS id,
                  (SELECT revision FROM inventory_revision)::text AS revision`,
        );
        expect(ids).toEqual({ id: String(lastSeq + 1n), revision: String(lastSeq + 1n) });
      });

      it("copies an empty store, and moves the revision so a cached inventory is read again", async () => {
        const from = join(temp.dir, "empty.db");
        await openSqliteStore(from).close();
        const report = await copyStore({ from, url: database.url });
        expect(report.counts.map((count) => [count.source, count.copied])).toEqual(
          Array.from({ length: 5 }, () => [0n, 0n]),
        );
        expect(report.lastSeq).toBe(0n);
        expect(
          await queryDatabase(database.url, "SELECT revision::text FROM inventory_revision"),
        ).toEqual([{ revision: "1" }]);
        const store = await openTarget();
        expect((await store.listInventory()).items).toEqual([]);
      });

      it("copies a store made at schema version 8, before PostgreSQL's idempotency_keys became idempotency_records, into a database a version-8 petstore made", async () => {
        // SQLite's version 9 moved the number only: a version-8 file is this schema at number 8.
        expect(MIGRATIONS[8]?.trim()).toBe("SELECT 1;");
        const from = join(temp.dir, "petstore.db");
        await makeSqliteStore(from, { pets: 5, keyed: 3 });
        const file = new Database(from);
        // Version 13 added the records' seq: a version-8 file has none.
        file.exec("ALTER TABLE idempotency_records DROP COLUMN seq");
        file.pragma("user_version = 8");
        file.close();
        await queryDatabase(
          database.url,
          "CREATE TABLE petstore_schema (version integer NOT NULL)",
        );
        for (const migration of POSTGRES_MIGRATIONS.slice(0, 8)) {
          await queryDatabase(database.url, migration);
        }
        await queryDatabase(database.url, "INSERT INTO petstore_schema (version) VALUES (8)");
        const source = sqliteRows(from);

        await copyStore({ from, url: database.url });

        expect(await postgresRows(database.url)).toEqual(source);
        expect(source.idempotency).toHaveLength(5);
        expect(
          await queryDatabase(
            database.url,
            "SELECT to_regclass('idempotency_keys')::text AS old, version FROM petstore_schema",
          ),
        ).toEqual([{ old: null, version: POSTGRES_MIGRATIONS.length }]);
        const store = await openTarget();
        // Its records kept no seq, so their replays say none.
        expect(await store.updateQuantity(BIG, 9, { idempotency: KEYED })).toMatchObject({
          kind: "replayed",
          seq: null,
        });
      });
    });

    describe("db copy: a target it refuses, left as it was", () => {
      const TARGETS: [string, (url: string) => Promise<void>][] = [
        [
          "a pet",
          async (url) => {
            const store = await openPostgresStore(url);
            await store.seedIfEmpty(seedPets(1));
            await store.close();
          },
        ],
        [
          "an idempotency record alone",
          async (url) => {
            await (await openPostgresStore(url)).close();
            await queryDatabase(
              url,
              `INSERT INTO idempotency_records (owner, key, fingerprint, created_at, status, body, etag)
               VALUES ('o', 'k', 'f', 1, 200, '{}', NULL)`,
            );
          },
        ],
        [
          "a history record alone",
          async (url) => {
            await (await openPostgresStore(url)).close();
            await queryDatabase(
              url,
              "INSERT INTO inventory_changes (pet_id, at, quantity, seq) VALUES (1, 1, 1, 1)",
            );
          },
        ],
      ];

      it.each(TARGETS)("refuses a database holding %s, and changes nothing", async (_, fill) => {
        const from = join(temp.dir, "petstore.db");
        await makeSqliteStore(from);
        await fill(database.url);
        const before = await dump(database.url);
        const error = await copyFailure(from, database.url);
        expect(error.failure).toBe("configuration");
        expect(error.message).toMatch(
          new RegExp(`^database ${database.name} on .* is not empty: it holds \\d+ pets?, `),
        );
        expect(await dump(database.url)).toEqual(before);
      });

      it("refuses a pet written by another session while the copy waited for its lock", async () => {
        const from = join(temp.dir, "petstore.db");
        await makeSqliteStore(from);
        await (await openPostgresStore(database.url)).close();
        const other = new pg.Client({ connectionString: database.url });
        await other.connect();
        try {
          await other.query("BEGIN");
          await other.query(
            "INSERT INTO pets (id, name, status, quantity) VALUES (77, 'Late', 'sold', 1)",
          );
          // Its first look finds the tables empty (the pet is not committed); its lock waits.
          const copying = copyFailure(from, database.url);
          await expect
            .poll(
              async () =>
                (await queryDatabase(database.url, "SELECT 1 FROM pg_locks WHERE NOT granted"))
                  .length,
            )
            .toBeGreaterThan(0);
          await other.query("COMMIT");
          const error = await copying;
          expect(error.failure).toBe("configuration");
          expect(error.message).toContain("it holds 1 pet, 0 orders, 0 history records");
        } finally {
          await other.end();
        }
        expect(await queryDatabase(database.url, "SELECT id::text FROM pets")).toEqual([
          { id: "77" },
        ]);
      });

      it("rolls everything back when the counts differ (a row the target dropped)", async () => {
        const from = join(temp.dir, "petstore.db");
        await makeSqliteStore(from);
        await (await openPostgresStore(database.url)).close();
        await queryDatabase(
          database.url,
          `CREATE FUNCTION drop_pet_3() RETURNS trigger LANGUAGE plpgsql AS
             $$ BEGIN IF NEW.id = 3 THEN RETURN NULL; END IF; RETURN NEW; END $$;
           CREATE TRIGGER drop_pet_3 BEFORE INSERT ON pets FOR EACH ROW EXECUTE FUNCTION drop_pet_3();`,
        );
        const before = await dump(database.url);
        const error = await copyFailure(from, database.url);
        expect(error.failure).toBe("failed");
        expect(error.message).toMatch(
          /counts differ .*\(pets: 5 in SQLite, 4 in PostgreSQL; units in stock: (\d+) in SQLite, (?!\1)\d+ in PostgreSQL\); rolled back, the target is as it was$/,
        );
        expect(await dump(database.url)).toEqual(before);
      });

      it("creates nothing in a blank database when a row fails (the schema is in the transaction)", async () => {
        const from = join(temp.dir, "petstore.db");
        await makeSqliteStore(from);
        // SQLite takes an order of 2^31 pets; PostgreSQL's integer column does not.
        const db = new Database(from);
        db.prepare(
          "INSERT INTO orders VALUES (5, 1, 2147483648, '2026-01-04T00:00:00.000Z', 'placed', 0)",
        ).run();
        db.close();
        const error = await copyFailure(from, database.url);
        expect(error.failure).toBe("failed");
        expect(error.message).toMatch(
          new RegExp(
            `^cannot copy into PostgreSQL database ${database.name} on .*: value "2147483648" is out of range for type integer \\(22003\\); rolled back, the target is as it was$`,
          ),
        );
        expect(await dump(database.url)).toEqual({ "(sequences)": [] });
      });

      it("refuses a database whose schema is newer than this petstore's", async () => {
        const from = join(temp.dir, "petstore.db");
        await makeSqliteStore(from);
        await queryDatabase(
          database.url,
          "CREATE TABLE petstore_schema (version integer NOT NULL)",
        );
        await queryDatabase(database.url, "INSERT INTO petstore_schema VALUES (99)");
        const before = await dump(database.url);
        const error = await copyFailure(from, database.url);
        expect(error.failure).toBe("configuration");
        expect(error.message).toContain("schema version 99 is newer than this petstore supports");
        expect(await dump(database.url)).toEqual(before);
      });
    });

    describe("petstore db copy (in process)", () => {
      const env = (url: string) => ({ PETSTORE_DATABASE_URL: url });

      it("prints each table's counts, then what to do next, with exit 0", async () => {
        const from = join(temp.dir, "petstore.db");
        await makeSqliteStore(from);
        const result = await runFake(["db", "copy", "--from", from], { env: env(database.url) });
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        const lines = result.stdout.split("\n");
        expect(lines.slice(0, 6)).toEqual([
          "                     source  copied",
          "pets                      5       5",
          "orders                    2       2",
          "history records           8       8",
          "idempotency records       2       2",
          expect.stringMatching(/^units in stock\s+(\d+)\s+\1$/),
        ]);
        expect(lines[6]).toMatch(
          new RegExp(
            `^done: copied ${from} into database ${database.name} on .* in \\d+\\.\\d s; the change feed goes on after seq 8$`,
          ),
        );
        expect(lines[7]).toMatch(/^next: .*start petstore serve with PETSTORE_DATABASE_URL set/);
      });

      it("exits 2 naming PETSTORE_DATABASE_URL or --from when one is missing", async () => {
        const noUrl = await runFake(["db", "copy", "--from", "x.db"], { env: {} });
        expect(noUrl.code).toBe(2);
        expect(noUrl.stderr).toMatch(/^error: PETSTORE_DATABASE_URL is not set/);
        const noFrom = await runFake(["db", "copy"], { env: env(database.url) });
        expect(noFrom.code).toBe(2);
        expect(noFrom.stderr).toContain("required option '--from <path>' not specified");
      });

      it("never shows the URL's password: copied, refused, unreachable, wrong password, --verbose", async () => {
        const from = join(temp.dir, "petstore.db");
        await makeSqliteStore(from);
        expect(database.url).toContain(TEST_CLUSTER_PASSWORD);
        const secret = "hunter2-very-secret";
        const runs = {
          copied: await runFake(["--verbose", "db", "copy", "--from", from], {
            env: env(database.url),
          }),
          refused: await runFake(["--verbose", "db", "copy", "--from", from], {
            env: env(database.url),
          }),
          unreachable: await runFake(["--verbose", "db", "copy", "--from", from], {
            env: env(`postgres://petstore:${secret}@127.0.0.1:1/inventory`),
          }),
          wrongPassword: await runFake(["--verbose", "db", "copy", "--from", from], {
            env: env(database.url.replace(TEST_CLUSTER_PASSWORD, secret)),
          }),
          badUrl: await runFake(["--verbose", "db", "copy", "--from", from], {
            env: env(`mysql://root:${secret}@127.0.0.1/x`),
          }),
        };
        expect(
          Object.fromEntries(Object.entries(runs).map(([name, run]) => [name, run.code])),
        ).toEqual({ copied: 0, refused: 2, unreachable: 3, wrongPassword: 2, badUrl: 2 });
        expect(runs.unreachable.stderr).toMatch(
          /^error: cannot use PostgreSQL database inventory on 127\.0\.0\.1:1: .*ECONNREFUSED/,
        );
        expect(runs.wrongPassword.stderr).toMatch(passwordRefusal(route));
        for (const run of Object.values(runs)) {
          for (const text of [run.stdout, run.stderr]) {
            expect(text).not.toContain(TEST_CLUSTER_PASSWORD);
            expect(text).not.toContain(secret);
          }
        }
      });
    });
  });
});

describe("db copy: a source it cannot copy", () => {
  eachTestOn("direct");

  it("names a missing file, and never creates it", async () => {
    const from = join(temp.dir, "nowhere.db");
    const error = await copyFailure(from, database.url);
    expect(error).toMatchObject({
      failure: "configuration",
      message: `cannot copy from ${from}: no such file or directory`,
    });
    expect(error.hint).toContain("petstore serve --db");
    expect(existsSync(from)).toBe(false);
  });

  it("refuses a directory and a file that is not SQLite", async () => {
    expect((await copyFailure(temp.dir, database.url)).message).toContain("not a file");
    const junk = join(temp.dir, "junk.db");
    writeFileSync(junk, "not a database at all, but long enough to have a header ".repeat(10));
    expect((await copyFailure(junk, database.url)).message).toBe(
      `cannot copy from ${junk}: file is not a database`,
    );
  });

  it.each([
    [
      OLDEST_COPIED_VERSION - 1,
      /older than the one this petstore copies/,
      /petstore serve --db .* once/,
    ],
    [MIGRATIONS.length + 1, /newer than this petstore knows/, /version that wrote the file/],
    [0, /not a petstore store/, undefined],
  ])("refuses schema version %i, saying what to do", async (version, message, hint) => {
    const from = join(temp.dir, "petstore.db");
    await makeSqliteStore(from);
    const db = new Database(from);
    db.pragma(`user_version = ${version}`);
    db.close();
    const error = await copyFailure(from, database.url);
    expect(error.failure).toBe("configuration");
    expect(error.message).toMatch(message);
    if (hint) expect(error.hint).toMatch(hint);
    expect(await queryDatabase(database.url, "SELECT to_regclass('pets') AS t")).toEqual([
      { t: null },
    ]);
  });
});
