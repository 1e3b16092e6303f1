/**
 * vitest global setup of the projects that need PostgreSQL (`postgres`, `e2e`: vitest.config.ts):
 * one embedded cluster for the project's run (each test file makes its own databases on it), or
 * the server `PETSTORE_TEST_DATABASE_URL` names instead; and in front of it two PgBouncers
 * (pgbouncer.ts), one in transaction mode and one in session mode, the routes besides the
 * direct one that postgres-database.ts makes databases reachable by. Without PgBouncer
 * installed the pooled routes are skipped, saying so here and in each skipped suite's name.
 */
import type { TestProject } from "vitest/node";
import { startTestCluster } from "./postgres-cluster.js";
import { pgBouncerMissing, startPgBouncer, targetOf, type RunningPgBouncer } from "./pgbouncer.js";

/** The URLs of the server's `postgres` database through each PgBouncer. */
export interface PgBouncerUrls {
  transaction: string;
  session: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** A URL of a database on the test server whose user may create databases. */
    postgresAdminUrl: string;
    /** The same server through PgBouncer in each mode; null when PgBouncer is missing. */
    pgbouncerUrls: PgBouncerUrls | null;
    /** Why there is no PgBouncer (the pooled routes are skipped), or null. */
    pgbouncerMissing: string | null;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const existing = process.env.PETSTORE_TEST_DATABASE_URL;
  const cluster = existing === undefined ? await startTestCluster() : undefined;
  const adminUrl = existing ?? cluster?.adminUrl ?? "";
  project.provide("postgresAdminUrl", adminUrl);
  const missing = pgBouncerMissing();
  let bouncers: RunningPgBouncer[] = [];
  if (missing === undefined) {
    const started = await Promise.allSettled([
      startPgBouncer(targetOf(adminUrl), "transaction"),
      startPgBouncer(targetOf(adminUrl), "session"),
    ]);
    bouncers = started.flatMap((outcome) =>
      outcome.status === "fulfilled" ? [outcome.value] : [],
    );
    const failed = started.find((outcome) => outcome.status === "rejected");
    if (failed !== undefined) {
      // Installed but not working is a failure, never a skip.
      await Promise.all(bouncers.map((bouncer) => bouncer.stop()));
      await cluster?.destroy();
      throw failed.reason;
    }
    const [transaction, session] = bouncers as [RunningPgBouncer, RunningPgBouncer];
    project.provide("pgbouncerUrls", { transaction: transaction.url, session: session.url });
    project.provide("pgbouncerMissing", null);
  } else {
    process.stderr.write(
      `${project.name}: ${missing}: the PostgreSQL suites through PgBouncer are skipped\n`,
    );
    project.provide("pgbouncerUrls", null);
    project.provide("pgbouncerMissing", missing);
  }
  return async () => {
    await Promise.all(bouncers.map((bouncer) => bouncer.stop()));
    await cluster?.destroy();
  };
}
