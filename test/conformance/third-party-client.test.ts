/**
 * The document as a third party uses it: openapi-typescript's types of the document the real
 * server serves (committed as third-party-client/inventory-paths.ts, so the program below is
 * ordinary project code, and checked here for drift), a program that calls every operation
 * through openapi-fetch (third-party-client/every-operation.ts) type-checked with `tsc
 * --strict`, then run against `petstore serve`, each answer validated against the document.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_PATHS_FILE, clientPathsSource } from "../../scripts/openapi-client.js";
import { ROOT } from "../e2e/support/binary.js";
import { API_KEY, startServer, type RunningServer } from "../e2e/support/servers.js";
import { tempDir } from "../support/temp-dir.js";
import { answerChecker } from "../support/openapi-answers.js";
import { whileSqliteLocked } from "../support/sqlite-lock.js";
import { callEveryOperation, type Exchange } from "./third-party-client/every-operation.js";

const PROGRAM = join(import.meta.dirname, "third-party-client", "every-operation.ts");
const READ_KEY = "third-party-read-key-81c3";

type Document = Parameters<typeof answerChecker>[0];

const temp = tempDir("petstore-third-party-");
let server: RunningServer;
let served: Document;
beforeAll(async () => {
  const keysFile = join(temp.dir, "keys.txt");
  const readDigest = createHash("sha256").update(READ_KEY).digest("hex");
  writeFileSync(keysFile, `reader read sha256:${readDigest}\n`);
  server = await startServer({
    args: ["--demo", "--api-keys-file", keysFile],
    // A write waits this long for the lock the 503 calls find held.
    env: { PETSTORE_LOCK_TIMEOUT_MS: "300" },
  });
  const response = await fetch(`${server.url}/openapi.json`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  served = (await response.json()) as Document;
});
afterAll(async () => {
  await server.stop();
  temp.remove();
});

describe("a client generated from the served document by openapi-typescript", () => {
  it("is the committed inventory-paths.ts (else run `npm run openapi`)", async () => {
    expect(readFileSync(CLIENT_PATHS_FILE, "utf8")).toBe(await clientPathsSource(served));
  });

  it("types a program that calls every operation through openapi-fetch: tsc --strict", () => {
    const tsc = spawnSync(
      process.execPath,
      [
        join(ROOT, "node_modules", "typescript", "bin", "tsc"),
        "--strict",
        "--exactOptionalPropertyTypes",
        "--noUncheckedIndexedAccess",
        "--noEmit",
        ...["--target", "es2022", "--lib", "es2023", "--types", "node"],
        ...["--module", "nodenext", "--moduleResolution", "nodenext"],
        PROGRAM,
      ],
      { cwd: ROOT, encoding: "utf8" },
    );
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  });

  it("gets, for every operation, the answers the document declares", async () => {
    const exchanges = await callEveryOperation({
      baseUrl: server.url,
      writeKey: API_KEY,
      readKey: READ_KEY,
      whileStoreLocked: (calls) => whileSqliteLocked(server.dbPath, calls),
    });
    const check = answerChecker(served);
    const named = (e: Exchange) => `${e.method} ${e.path} ${String(e.expected)}`;
    for (const exchange of exchanges) {
      expect(exchange.status, `${named(exchange)}: ${JSON.stringify(exchange.body)}`).toBe(
        exchange.expected,
      );
      expect(check(exchange.path, exchange.method, exchange), named(exchange)).toEqual([]);
    }

    // Every operation was called, with a success and an error; every error kind asked for met.
    const operations = Object.entries(served.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    for (const operation of operations) {
      const statuses = exchanges
        .filter((e) => `${e.method} ${e.path}` === operation)
        .map((e) => e.status);
      expect(
        statuses.some((s) => s < 300),
        `${operation} succeeded`,
      ).toBe(true);
      expect(
        statuses.some((s) => s >= 400),
        `${operation} failed`,
      ).toBe(true);
    }
    const statuses = new Set(exchanges.map((e) => e.status));
    for (const status of [200, 400, 401, 403, 404, 409, 412, 415, 422, 503]) {
      expect(statuses.has(status), String(status)).toBe(true);
    }
    // The replays carried Idempotent-Replayed, which the document declares.
    const replayed = exchanges.filter((e) => e.headers.get("idempotent-replayed") === "true");
    expect(replayed.map(named).sort()).toEqual([
      "patch /inventory/{petId} 200",
      "post /inventory/batch 200",
    ]);
  });
});
