/**
 * Which store `petstore serve` opens: the SQLite file of `--db`, or PostgreSQL when
 * `PETSTORE_DATABASE_URL` is set (an environment variable, so its password never shows in
 * `ps`). Failures are OperatorErrors that name host and database, never the password.
 */
import type { Store } from "./store/store.js";
import { StoreBusyError } from "./store/store-busy-error.js";
import { StoreUnavailableError } from "./store/store-unavailable-error.js";
import { OperatorError } from "../api/operator-error.js";

/** The SQLite file used when neither `--db` nor `PETSTORE_DATABASE_URL` is given. */
export const DEFAULT_DB = "./petstore.db";

/** The connections an instance opens at most, unless PETSTORE_DATABASE_POOL_SIZE says. */
export const DEFAULT_POOL_SIZE = 10;

export type StoreChoice =
  | { kind: "sqlite"; path: string }
  | { kind: "postgres"; url: string; name: string; poolSize: number };

/**
 * Decides the store from `--db` and the environment; both at once is a configuration error.
 * The PostgreSQL driver is loaded only when PETSTORE_DATABASE_URL is set.
 */
export async function chooseStore(
  db: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<StoreChoice> {
  const url = env.PETSTORE_DATABASE_URL;
  if (url === undefined || url === "") return { kind: "sqlite", path: db ?? DEFAULT_DB };
  if (db !== undefined) {
    throw new OperatorError(
      "configuration",
      "both --db and PETSTORE_DATABASE_URL are set: choose one store",
      "unset PETSTORE_DATABASE_URL to use the SQLite file, or drop --db to use PostgreSQL",
    );
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new OperatorError(
      "configuration",
      "PETSTORE_DATABASE_URL must be a postgres:// (or postgresql://) URL",
      "for example postgres://petstore@db.internal:5432/petstore (the password in PGPASSWORD or ~/.pgpass, or in the URL)",
    );
  }
  const { describeDatabase } = await import("./store/postgres/connection.js");
  let name: string;
  try {
    name = describeDatabase(url);
  } catch {
    throw new OperatorError("configuration", "PETSTORE_DATABASE_URL is not a valid URL");
  }
  return { kind: "postgres", url, name, poolSize: poolSizeFrom(env.PETSTORE_DATABASE_POOL_SIZE) };
}

function poolSizeFrom(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULT_POOL_SIZE;
  const size = Number(value);
  if (!/^[0-9]{1,4}$/.test(value) || size < 2 || size > 1000) {
    throw new OperatorError(
      "configuration",
      `PETSTORE_DATABASE_POOL_SIZE must be a whole number from 2 to 1000, not "${value}"`,
    );
  }
  return size;
}

/** How a chosen store is opened. */
export interface OpenOptions {
  /** How long a write waits for a lock (PETSTORE_LOCK_TIMEOUT_MS). */
  lockTimeoutMs: number;
  /** Told when a PostgreSQL connection fails later (the server logs it). */
  onConnectionError: (message: string) => void;
}

/**
 * Opens the chosen store, migrated; each engine's driver is loaded only when chosen. Its
 * failures are OperatorErrors: `unavailable` (exit 3) for a SQLite file another process kept
 * locked for the whole wait, or a PostgreSQL that cannot give a session now (unreachable,
 * starting or shutting down, out of connections, a pooler without a server connection);
 * `configuration` (exit 2) for anything else (a file that is not a store, authentication, no
 * such database, a pooler refusing a startup parameter, an address that is not PostgreSQL, a
 * newer schema). A PostgreSQL refusal's hint says what was refused (postgres/refusal.ts).
 */
export async function openStore(choice: StoreChoice, options: OpenOptions): Promise<Store> {
  if (choice.kind === "sqlite") {
    const { openSqliteStore } = await import("./store/sqlite/store.js");
    try {
      return openSqliteStore(choice.path, { lockTimeoutMs: options.lockTimeoutMs });
    } catch (error) {
      if (error instanceof StoreBusyError) throw storeLocked(choice.path, error);
      throw new OperatorError(
        "configuration",
        `cannot open database ${choice.path}: ${(error as Error).message}`,
      );
    }
  }
  const { openPostgresStore } = await import("./store/postgres/store.js");
  try {
    return await openPostgresStore(choice.url, {
      poolSize: choice.poolSize,
      lockTimeoutMs: options.lockTimeoutMs,
      onConnectionError: options.onConnectionError,
    });
  } catch (error) {
    // The message is PostgreSQL's or the pooler's own, its password masked; what was refused
    // (the error pg gave, the cause) decides the kind and the hint.
    const { classifyRefusal } = await import("./store/postgres/refusal.js");
    const message = (error as Error).message;
    const refusal = classifyRefusal((error as Error).cause ?? error, choice.url);
    if (refusal !== undefined) throw new OperatorError(refusal.failure, message, refusal.hint);
    if (error instanceof StoreUnavailableError) {
      throw new OperatorError(
        "unavailable",
        message,
        "check that PostgreSQL is running and that this host can reach it",
      );
    }
    throw new OperatorError("configuration", message);
  }
}

/** The store's name in messages: the SQLite file, or the database and its host. */
export function storeName(choice: StoreChoice): string {
  return choice.kind === "sqlite" ? choice.path : choice.name;
}

/** Another process held the store's lock for the whole start-up wait. */
export function storeLocked(name: string, error: StoreBusyError): OperatorError {
  return new OperatorError(
    "unavailable",
    `cannot open database ${name}: ${error.message}`,
    "another process (a backup, the sqlite3 shell, another petstore serve) holds its lock: try again when it is done",
  );
}
