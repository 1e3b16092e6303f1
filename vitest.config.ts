import { defineConfig } from "vitest/config";

// Two projects: `unit` (functions and app.inject(), no build needed) and `e2e` (the built
// binary and real servers, spawned: `npm run build` first). `vitest run` runs both.
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // One embedded PostgreSQL for the run; each test file makes its own databases on it.
    globalSetup: ["test/support/postgres-global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: ["test/e2e/**", "test/conformance/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts", "test/conformance/**/*.test.ts"],
        },
      },
    ],
  },
});
