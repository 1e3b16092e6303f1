/**
 * A PostgreSQL database whose tablespace is a small tmpfs, on the run's own test cluster: fill
 * the tmpfs and PostgreSQL refuses to extend a table with `disk_full` (53100), while its WAL,
 * in the cluster's data directory, still has room. Needs root (the mount) and the `postgres`
 * system user the cluster then runs as; tests skip visibly elsewhere, naming why.
 */
import { execFileSync } from "node:child_process";
import { chownSync } from "node:fs";
import { join } from "node:path";
import {
  postgresAdminUrl,
  queryDatabase,
  routeUrl,
  withDatabase,
  type Route,
} from "./postgres-database.js";
import { cannotMountTmpfs, mountTmpfs } from "./tmpfs.js";

/** Why such a database cannot be made here, or undefined. */
export function cannotMakeTmpfsDatabase(): string | undefined {
  const why = cannotMountTmpfs();
  if (why !== undefined) return `cannot mount a tmpfs: ${why}`;
  // A cluster reached by PETSTORE_TEST_DATABASE_URL may be on another machine.
  if (process.env.PETSTORE_TEST_DATABASE_URL) return "the cluster is not this run's own";
  try {
    execFileSync("id", ["-u", "postgres"], { stdio: "pipe" });
    return undefined;
  } catch {
    return "no postgres user to own the tablespace";
  }
}

export interface TmpfsDatabase {
  /** postgres://… URL of the new, empty database, through its route. */
  url: string;
  name: string;
  /** The filler's path: fillFileSystem(filler) fills the tablespace. */
  filler: string;
  /** Drops the database and its tablespace, and unmounts the tmpfs. */
  drop(): Promise<void>;
}

/**
 * A new database whose tablespace is a tmpfs of `size` (mount(8)'s notation: "4m"), reached
 * through `route` (directly unless said); made and dropped directly.
 */
export async function createTmpfsDatabase(
  size: string,
  route: Route = "direct",
): Promise<TmpfsDatabase> {
  const admin = postgresAdminUrl();
  const name = `petstore_full_${Math.random().toString(16).slice(2, 10)}`;
  const tmpfs = mountTmpfs(size);
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString().trim());
  chownSync(tmpfs.dir, id("-u"), id("-g"));
  await queryDatabase(admin, `CREATE TABLESPACE ${name} LOCATION '${tmpfs.dir}'`);
  await queryDatabase(admin, `CREATE DATABASE ${name} TABLESPACE ${name}`);
  return {
    url: withDatabase(routeUrl(route), name),
    name,
    filler: join(tmpfs.dir, "filler"),
    async drop() {
      await queryDatabase(admin, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await queryDatabase(admin, `DROP TABLESPACE IF EXISTS ${name}`);
      tmpfs.unmount();
    },
  };
}
