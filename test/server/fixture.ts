/** Builds an app on a fresh SQLite file in a temp directory, for in-process tests. */
import Database from "better-sqlite3";
import { join } from "node:path";
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { apiKeyFromSecret } from "../../src/api/keys-file.js";
import { buildApp, type AppOptions } from "../../src/server/app.js";
import { openSqliteStore } from "../../src/server/store/sqlite/store.js";
import type { SeedPet, Store } from "../../src/server/store/store.js";
import { tempDir } from "../support/temp-dir.js";

export { tempDir };

export const API_KEY = "test-key-0123456789";
export const AUTH = { authorization: `Bearer ${API_KEY}` };
/** A key of scope `read`, named `reader`, that every test app accepts too. */
export const READ_KEY = "test-read-key-9876543210";
export const READ_AUTH = { authorization: `Bearer ${READ_KEY}` };

/** The keys of a test app: API_KEY (`tester`), `second-key` (`second`), READ_KEY (`reader`). */
export const TEST_API_KEYS = [
  apiKeyFromSecret("tester", "write", API_KEY),
  apiKeyFromSecret("second", "write", "second-key"),
  apiKeyFromSecret("reader", "read", READ_KEY),
];
export { MAX_ID_TEXT as MAX_ID } from "../support/ids.js";

export const PETS: readonly SeedPet[] = [
  { id: 1n, name: "Rex", status: "available", quantity: 3, photoUrls: [], tags: [] },
  {
    id: 2n,
    name: "Tom",
    status: "sold",
    quantity: 0,
    photoUrls: ["https://x/tom.png"],
    tags: [{ id: 7n, name: "cat" }],
    category: { id: 2n, name: "Cats" },
  },
  {
    id: 9223372036854775807n,
    name: "Max",
    status: "pending",
    quantity: 5,
    photoUrls: [],
    tags: [],
  },
];

/** Available pets with these ids, named `pet <id>`, `quantity` of each, as a store seeds them. */
export function petsWithIds(ids: readonly bigint[], quantity = 10): SeedPet[] {
  return ids.map((id) => ({
    id,
    name: `pet ${id}`,
    status: "available",
    quantity,
    photoUrls: [],
    tags: [],
  }));
}

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  dbPath: string;
  logs: string[];
  close(): Promise<void>;
}

/** An app over a seeded SQLite store whose log lines are collected in `logs`. */
export async function createTestApp(
  options: Partial<Omit<AppOptions, "store" | "logStream">> & { store?: Store } = {},
): Promise<TestApp> {
  const temp = tempDir();
  const dbPath = join(temp.dir, "petstore.db");
  const store = options.store ?? openSqliteStore(dbPath);
  if (!options.store) await store.seedIfEmpty(PETS);
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      callback();
    },
  });
  const app = await buildApp({ apiKeys: TEST_API_KEYS, ...options, store, logStream });
  return {
    app,
    store,
    dbPath,
    logs,
    async close() {
      await app.close();
      await store.close();
      temp.remove();
    },
  };
}

export interface LockedTestApp extends TestApp {
  /** The other connection, holding the write lock of the app's SQLite file. */
  locker: Database.Database;
  /** Ends the other connection's transaction: the lock is gone. */
  release(): void;
}

/**
 * An app over a seeded SQLite store whose write lock another connection holds (BEGIN
 * IMMEDIATE), as another process would; the store waits `lockTimeoutMs` for a lock.
 */
export async function createLockedTestApp(lockTimeoutMs: number): Promise<LockedTestApp> {
  const temp = tempDir();
  const dbPath = join(temp.dir, "petstore.db");
  const store = openSqliteStore(dbPath, { lockTimeoutMs });
  await store.seedIfEmpty(PETS);
  const test = await createTestApp({ store });
  const locker = new Database(dbPath);
  locker.exec("BEGIN IMMEDIATE");
  const release = () => {
    if (locker.inTransaction) locker.exec("ROLLBACK");
  };
  return {
    ...test,
    dbPath,
    locker,
    release,
    async close() {
      release();
      locker.close();
      await test.close();
      temp.remove();
    },
  };
}
