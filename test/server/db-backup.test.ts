import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { backupSqliteStore, SCHEMA_VERSION } from "../../src/server/store/sqlite/backup.js";
import { backupError } from "../../src/server/store/sqlite/backup-error.js";
import { MIGRATIONS } from "../../src/server/store/sqlite/migrations.js";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import { runFake } from "../commands/fake-deps.js";
import { AUTH, createTestApp, tempDir, type TestApp } from "./fixture.js";

/** Runs just before the backup links its checked copy into place: the race of a test. */
const hooks = vi.hoisted(() => ({ beforeLink: undefined as (() => void) | undefined }));

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return {
    ...real,
    linkSync: (...args: Parameters<typeof real.linkSync>) => {
      hooks.beforeLink?.();
      real.linkSync(...args);
    },
  };
});

const TABLES = ["pets", "orders", "inventory_changes", "idempotency_records"] as const;

/** Every row of every table, read exactly (int64 as bigint). */
function rowsOf(path: string): Record<string, unknown[]> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.defaultSafeIntegers(true);
  try {
    return Object.fromEntries(
      TABLES.map((table) => [table, db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all()]),
    );
  } finally {
    db.close();
  }
}

/** Runs `petstore db backup ...args` in-process, without PostgreSQL in the environment. */
function backup(args: readonly string[], env: Record<string, string> = {}) {
  return runFake(["db", "backup", ...args], { env });
}

let temp: { dir: string; remove: () => void };
let server: TestApp;

/** A store with pets, orders, history and idempotency records, its server still open. */
beforeEach(async () => {
  temp = tempDir("petstore-backup-");
  server = await createTestApp();
  for (const [petId, quantity] of [
    [1, 4],
    [1, 6],
    ["9223372036854775807", 8],
  ] as const) {
    const response = await server.app.inject({
      method: "PATCH",
      url: `/v1/inventory/${petId}`,
      headers: { ...AUTH, "idempotency-key": `key-${petId}-${quantity}` },
      payload: { quantity },
    });
    expect(response.statusCode).toBe(200);
  }
});

afterEach(async () => {
  hooks.beforeLink = undefined;
  await server.close();
  temp.remove();
});

describe("backupSqliteStore", () => {
  it("copies every row of a live store, checks the copy and reports its counts", () => {
    const out = join(temp.dir, "copy.db");
    const report = backupSqliteStore(server.dbPath, out);
    expect(rowsOf(out)).toEqual(rowsOf(server.dbPath));
    const source = rowsOf(server.dbPath);
    expect(report).toEqual({
      path: out,
      source: server.dbPath,
      bytes: statSync(out).size,
      integrity: "ok",
      schemaVersion: MIGRATIONS.length,
      pets: source.pets?.length,
      orders: source.orders?.length,
      historyRecords: source.inventory_changes?.length,
      idempotencyRecords: source.idempotency_records?.length,
    });
    expect(report.historyRecords).toBe(6); // 3 seeded, 3 PATCHes
    expect(report.idempotencyRecords).toBe(3);
    expect(readdirSync(temp.dir)).toEqual(["copy.db"]); // no temporary file, no -wal or -shm
  });

  it("takes a snapshot without waiting for a write transaction in progress, and without it", () => {
    const committed = rowsOf(server.dbPath);
    const writer = new Database(server.dbPath);
    const out = join(temp.dir, "copy.db");
    let openWhenCopied: boolean;
    try {
      writer.exec("BEGIN IMMEDIATE; UPDATE pets SET quantity = 999 WHERE id = 1");
      // The backup runs synchronously on this thread, so the writer's transaction cannot end
      // before it returns: a backup that waited for the writer would fail (SQLITE_BUSY once its
      // lock time-out had passed), never return a copy while the transaction is still open.
      backupSqliteStore(server.dbPath, out);
      openWhenCopied = writer.inTransaction;
      writer.exec("COMMIT");
    } finally {
      writer.close();
    }
    expect(openWhenCopied).toBe(true);
    // The copy is the store as committed before the writer began; the writer's change, committed
    // after the copy was made, is in the store and not in the copy.
    expect(rowsOf(out)).toEqual(committed);
    expect(rowsOf(server.dbPath).pets?.[0]).toMatchObject({ id: 1n, quantity: 999n });
  });

  it("makes a copy a new store opens and serves", async () => {
    const out = join(temp.dir, "copy.db");
    backupSqliteStore(server.dbPath, out);
    const copy = openSqliteStore(out);
    try {
      expect((await copy.listInventory()).items).toEqual(
        (await server.store.listInventory()).items,
      );
    } finally {
      await copy.close();
    }
  });

  it("refuses a copy that appeared at <out> while it ran: that file is kept, the copy removed", () => {
    const out = join(temp.dir, "copy.db");
    hooks.beforeLink = () => {
      writeFileSync(out, "someone else's file");
    };
    expect(() => backupSqliteStore(server.dbPath, out)).toThrow(
      expect.objectContaining({
        failure: "configuration",
        reason: "out-exists",
        message: expect.stringContaining("appeared while the copy was made") as string,
      }) as Error,
    );
    expect(readFileSync(out, "utf8")).toBe("someone else's file");
    expect(readdirSync(temp.dir)).toEqual(["copy.db"]);
  });

  it("refuses a store of another schema version, naming it, and leaves nothing", () => {
    const older = join(temp.dir, "older.db");
    backupSqliteStore(server.dbPath, older);
    const db = new Database(older);
    db.pragma(`user_version = ${SCHEMA_VERSION - 1}`);
    db.close();
    const out = join(temp.dir, "copy.db");
    expect(() => backupSqliteStore(older, out)).toThrow(
      backupError(
        "check-failed",
        `${older} has schema version ${SCHEMA_VERSION - 1}, older than this petstore writes (${SCHEMA_VERSION})`,
        "back it up with the petstore version that serves it, or let this version's petstore serve migrate it first",
      ),
    );
    expect(readdirSync(temp.dir)).toEqual(["older.db"]);
  });
});

describe("petstore db backup", () => {
  it("prints what it wrote and what the check found; --json as one object", async () => {
    const out = join(temp.dir, "copy.db");
    const human = await backup(["--db", server.dbPath, out]);
    expect(human).toMatchObject({ code: 0, stderr: "" });
    expect(human.stdout).toBe(
      [
        `backup               ${out}`,
        `source               ${server.dbPath}`,
        `bytes                ${statSync(out).size}`,
        "integrity check      ok",
        `schema version       ${SCHEMA_VERSION}`,
        "pets                 3",
        "orders               0",
        "history records      6",
        "idempotency records  3",
        "",
      ].join("\n"),
    );
    const json = await backup(["--db", server.dbPath, join(temp.dir, "copy2.db"), "--json"]);
    expect(json).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(json.stdout)).toEqual({
      path: join(temp.dir, "copy2.db"),
      source: server.dbPath,
      bytes: statSync(join(temp.dir, "copy2.db")).size,
      integrity: "ok",
      schemaVersion: SCHEMA_VERSION,
      pets: 3,
      orders: 0,
      historyRecords: 6,
      idempotencyRecords: 3,
    });
  });

  it("refuses an existing <out> before copying: exit 2, the file byte for byte as it was", async () => {
    const out = join(temp.dir, "yesterday.db");
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256));
    writeFileSync(out, bytes);
    const before = statSync(out);
    const result = await backup(["--db", server.dbPath, out]);
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: `error: ${out} already exists: a backup never overwrites a file\nhint: name a new file (with the date in it, say), or move the old one away first\n`,
      sleeps: [],
    });
    expect(readFileSync(out).equals(bytes)).toBe(true);
    expect(statSync(out).mtimeMs).toBe(before.mtimeMs);
    expect(readdirSync(temp.dir)).toEqual(["yesterday.db"]);
  });

  it("refuses a missing source, naming it, and creates no file there or at <out>", async () => {
    const missing = join(temp.dir, "no-such.db");
    const out = join(temp.dir, "copy.db");
    const result = await backup(["--db", missing, out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: no database file at ${missing}\n`);
    expect(existsSync(missing)).toBe(false);
    expect(readdirSync(temp.dir)).toEqual([]);
  });

  it("names the default file, ./petstore.db, when --db is not given and it is missing", async () => {
    const cwd = process.cwd();
    process.chdir(temp.dir);
    try {
      const result = await backup(["copy.db"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(
        "error: no database file at ./petstore.db\nhint: ./petstore.db is petstore serve's file when it runs without --db: name the server's file with --db FILE\n",
      );
    } finally {
      process.chdir(cwd);
    }
    expect(readdirSync(temp.dir)).toEqual([]);
  });

  it("refuses a file that is not a SQLite database: exit 2, nothing at <out>", async () => {
    const notes = join(temp.dir, "notes.txt");
    writeFileSync(notes, "these are not the pets you are looking for\n".repeat(200));
    const out = join(temp.dir, "copy.db");
    const result = await backup(["--db", notes, out]);
    expect(result).toMatchObject({
      code: 2,
      stdout: "",
      stderr: `error: ${notes} is not a SQLite database\n`,
    });
    expect(readdirSync(temp.dir)).toEqual(["notes.txt"]);
  });

  it("refuses a damaged store: exit 2, a clear error, nothing at <out>", async () => {
    const good = join(temp.dir, "good.db");
    backupSqliteStore(server.dbPath, good);
    const damaged = join(temp.dir, "damaged.db");
    const bytes = readFileSync(good);
    // Every page after the first (the schema) overwritten: the tables' b-trees are garbage.
    bytes.fill(0x55, 4096);
    writeFileSync(damaged, bytes);
    const out = join(temp.dir, "copy.db");
    const result = await backup(["--db", damaged, out]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: (${damaged} is damaged: database disk image is malformed|the copy of ${damaged} failed PRAGMA integrity_check: .+)\\n(hint: .+\\n)?$`,
      ),
    );
    expect(result.stderr).not.toContain("    at ");
    expect(readdirSync(temp.dir).sort()).toEqual(["damaged.db", "good.db"]);
  });

  it("refuses a SQLite file that is not a petstore store", async () => {
    const other = join(temp.dir, "other.db");
    const db = new Database(other);
    db.exec("CREATE TABLE notes (text TEXT)");
    db.close();
    const result = await backup(["--db", other, join(temp.dir, "copy.db")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: ${other} is not a petstore store (its schema version is 0)\nhint: name the server's database file with --db\n`,
    );
    expect(readdirSync(temp.dir)).toEqual(["other.db"]);
  });

  it("refuses a directory that does not exist, naming it", async () => {
    const out = join(temp.dir, "nightly", "copy.db");
    const result = await backup(["--db", server.dbPath, out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: the directory ${join(temp.dir, "nightly")} does not exist\nhint: create it first: mkdir -p ${join(temp.dir, "nightly")}\n`,
    );
  });

  it("with PETSTORE_DATABASE_URL set and no --db: exit 2, the pg_dump command, never the URL", async () => {
    const url = "postgres://petstore:hunter2-s3cret@db.internal:5432/inventory";
    const out = join(temp.dir, "copy.db");
    const result = await backup([out], { PETSTORE_DATABASE_URL: url });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "error: the store lives in PostgreSQL (PETSTORE_DATABASE_URL is set): db backup copies SQLite files only\n" +
        'hint: back it up with pg_dump: pg_dump --format=custom --file=petstore.dump "$PETSTORE_DATABASE_URL"; or name a SQLite file with --db\n',
      sleeps: [],
    });
    for (const secret of ["hunter2", "db.internal", "inventory"]) {
      expect(result.stderr).not.toContain(secret);
    }
    expect(readdirSync(temp.dir)).toEqual([]);
  });

  it("with PETSTORE_DATABASE_URL set, backs up the SQLite file --db names", async () => {
    const url = "postgres://petstore:hunter2-s3cret@db.internal:5432/inventory";
    const out = join(temp.dir, "named.db");
    const result = await backup(["--db", server.dbPath, out], { PETSTORE_DATABASE_URL: url });
    expect(result.code).toBe(0);
    expect(readdirSync(temp.dir)).toEqual(["named.db"]);
  });

  it("refuses a missing <out> with usage help", async () => {
    const result = await backup(["--db", server.dbPath]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: missing required argument 'out'");
  });
});
