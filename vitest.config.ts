import { defineConfig } from "vitest/config";

// One embedded PostgreSQL per project that needs one; each test file makes its own databases on it.
const postgres = ["test/support/postgres-global-setup.ts"];

// The test files that need a PostgreSQL server (test/support/postgres-database.ts fails a file
// that asks for one in another project) or start one themselves.
const postgresFiles = [
  "test/server/store/postgres/store.test.ts",
  "test/server/store/postgres/storage-full.test.ts",
  "test/server/store/postgres/concurrent-counts.test.ts",
  "test/server/store/postgres/batch-statements.test.ts",
  "test/server/db-copy.test.ts",
  "test/server/db-copy-progress.test.ts",
  "test/server/counts-postgres.test.ts",
  "test/support/postgres-cluster.test.ts",
  "test/support/pgbouncer.test.ts",
];

// Three projects, every test file in one: `unit` (functions and app.inject(), no build, no
// database), `postgres` (the same without a build, on a PostgreSQL cluster) and `e2e` (the built
// binary and real servers, spawned: `npm run build` first). `vitest run` runs all three.
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/e2e/**", "test/conformance/**", ...postgresFiles],
        },
      },
      {
        extends: true,
        test: { name: "postgres", include: postgresFiles, globalSetup: postgres },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts", "test/conformance/**/*.test.ts"],
          globalSetup: postgres,
        },
      },
    ],
  },
});
