/**
 * vitest global setup of the projects that need PostgreSQL (`postgres`, `e2e`: vitest.config.ts):
 * one embedded cluster for the project's run (each test file makes its own databases on it), or
 * the server `PETSTORE_TEST_DATABASE_URL` names instead.
 */
import type { TestProject } from "vitest/node";
import { startTestCluster } from "./postgres-cluster.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A URL of a database on the test server whose user may create databases. */
    postgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const existing = process.env.PETSTORE_TEST_DATABASE_URL;
  if (existing) {
    project.provide("postgresAdminUrl", existing);
    return async () => undefined;
  }
  const cluster = await startTestCluster();
  project.provide("postgresAdminUrl", cluster.adminUrl);
  return () => cluster.destroy();
}
