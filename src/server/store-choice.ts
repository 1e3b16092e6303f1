/**
 * Which store `petstore serve` opens: the SQLite file of `--db`, or PostgreSQL when
 * `PETSTORE_DATABASE_URL` is set (an environment variable, so its password never shows in
 * `ps`). Failures are StartupErrors that name host and database, never the password.
 */
import type { Store } from "./store/store.js";
import { StoreUnavailableError } from "./store/store-unavailable-error.js";
import { StartupError } from "./startup-error.js";

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
    throw new StartupError(
      "configuration",
      "both --db and PETSTORE_DATABASE_URL are set: choose one store",
      "unset PETSTORE_DATABASE_URL to use the SQLite file, or drop --db to use PostgreSQL",
    );
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new StartupError(
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
    throw new StartupError("configuration", "PETSTORE_DATABASE_URL is not a valid URL");
  }
  return { kind: "postgres", url, name, poolSize: poolSizeFrom(env.PETSTORE_DATABASE_POOL_SIZE) };
}

function poolSizeFrom(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULT_POOL_SIZE;
  const size = Number(value);
  if (!/^[0-9]{1,4}$/.test(value) || size < 2 || size > 1000) {
    throw new StartupError(
      "configuration",
      `PETSTORE_DATABASE_POOL_SIZE must be a whole number from 2 to 1000, not "${value}"`,
    );
  }
  return size;
}

/**
 * Connects to PostgreSQL and migrates it. Unreachable: an `unavailable` StartupError (exit 3);
 * refused (authentication, no such database, a newer schema): `configuration` (exit 2).
 * A connection lost later is told to `onConnectionError` (the server logs it).
 */
export async function openChosenStore(
  choice: Extract<StoreChoice, { kind: "postgres" }>,
  lockTimeoutMs: number,
  onConnectionError: (message: string) => void,
): Promise<Store> {
  const { openPostgresStore } = await import("./store/postgres/store.js");
  try {
    return await openPostgresStore(choice.url, {
      poolSize: choice.poolSize,
      lockTimeoutMs,
      onConnectionError,
    });
  } catch (error) {
    if (error instanceof StoreUnavailableError) {
      throw new StartupError(
        "unavailable",
        error.message,
        "check that PostgreSQL is running and that this host can reach it",
      );
    }
    throw new StartupError("configuration", (error as Error).message);
  }
}
