/**
 * PostgreSQL stopped and restarted under a running `petstore serve`: 503 `unavailable` with
 * Retry-After (and /healthz 503) while it is down, correct answers after, and no restart of
 * the server. The test runs its own cluster, since it stops it; the server reaches it directly,
 * or through a PgBouncer of the test's own (transaction or session mode) that keeps running
 * while PostgreSQL is gone. A client that PgBouncer cannot give a server connection waits up
 * to its query_wait_timeout (2 s here; 120 s is PgBouncer's default) and is then refused, as
 * are those after it until PgBouncer logs in again (it tries each server_login_retry, 1 s).
 */
import { once } from "node:events";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startTestCluster,
  TEST_CLUSTER_PASSWORD,
  type TestCluster,
} from "../support/postgres-cluster.js";
import { eventually } from "../support/eventually.js";
import { startPgBouncer, targetOf, type RunningPgBouncer } from "../support/pgbouncer.js";
import { forEachRoute, withDatabase } from "../support/postgres-database.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

const auth = { authorization: `Bearer ${API_KEY}` };

const patch = (url: string, quantity: number) =>
  fetch(`${url}/inventory/1`, {
    method: "PATCH",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ quantity }),
  });

forEachRoute("PostgreSQL stopped under a running server", (route, name) => {
  describe(name, () => {
    let cluster: TestCluster;
    let bouncer: RunningPgBouncer | undefined;
    let server: RunningServer | undefined;
    beforeAll(async () => {
      cluster = await startTestCluster();
      if (route !== "direct") {
        const mode = route === "pgbouncer-transaction" ? "transaction" : "session";
        bouncer = await startPgBouncer(targetOf(cluster.adminUrl), mode, {
          queryWaitTimeoutS: 2,
        });
      }
    });
    afterAll(async () => {
      await server?.stop("SIGKILL");
      await bouncer?.stop();
      await cluster.destroy();
    });

    it("answers 503 with Retry-After while PostgreSQL is down and recovers by itself when it returns", async () => {
      // The cluster's own `postgres` database: nothing else uses this cluster.
      server = await startServer({
        databaseUrl: withDatabase(bouncer?.url ?? cluster.adminUrl, "postgres"),
        args: ["--demo"],
      });
      const { url } = server;
      const healthz = url.replace(/\/v1$/, "/healthz");
      expect((await patch(url, 11)).status).toBe(200);
      expect((await fetch(`${url}/inventory`, { headers: auth })).status).toBe(200);

      await cluster.stop();
      for (const response of [
        await fetch(`${url}/inventory`, { headers: auth }),
        await fetch(`${url}/inventory/1`, { headers: auth }),
        await patch(url, 12),
        await fetch(healthz),
      ]) {
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).toBe("1");
        const body = (await response.json()) as { code: string; message: string; status: number };
        expect(body).toMatchObject({ code: "unavailable", status: 503 });
        expect(body.message).toMatch(/database is unreachable/);
        expect(body.message).not.toContain(TEST_CLUSTER_PASSWORD);
      }
      expect(server.process.exitCode).toBeNull();

      await cluster.start();
      await eventually("/healthz 200 with PostgreSQL back", async () => {
        const response = await fetch(healthz);
        await response.arrayBuffer();
        return response.status === 200;
      });
      expect((await patch(url, 13)).status).toBe(200);
      const item = await fetch(`${url}/inventory/1`, { headers: auth });
      expect(await item.json()).toMatchObject({ petId: 1, quantity: 13 });
      expect(server.process.exitCode).toBeNull();
      expect(server.stderr()).not.toContain(TEST_CLUSTER_PASSWORD);
    }, 40_000);
  });
});

// PgBouncer as it comes (query_wait_timeout 120 s): a statement it holds for a database that is
// gone would keep a request, a stop and a start waiting two minutes. The server's own bound
// (the lock time-out plus the connect time-out; at start the connect time-out) answers first.
forEachRoute(
  "PostgreSQL stopped behind a PgBouncer that holds statements for its default 120 s",
  (_route, name) => {
    describe(name, () => {
      let cluster: TestCluster;
      let bouncer: RunningPgBouncer;
      let server: RunningServer | undefined;
      beforeAll(async () => {
        cluster = await startTestCluster();
        bouncer = await startPgBouncer(targetOf(cluster.adminUrl), "transaction", {
          queryWaitTimeoutS: 120,
          serverLoginRetryS: 15,
        });
      });
      afterAll(async () => {
        await server?.stop("SIGKILL");
        await bouncer.stop();
        await cluster.destroy();
      });

      it("answers 503 within the lock and connect time-outs, stops at once, and a start exits 3", async () => {
        const databaseUrl = withDatabase(bouncer.url, "postgres");
        // Statements are bounded by 500 ms + 5 s here.
        const env = { PETSTORE_LOCK_TIMEOUT_MS: "500" };
        server = await startServer({ databaseUrl, args: ["--demo"], env });
        const { url } = server;
        expect((await patch(url, 11)).status).toBe(200);

        await cluster.stop();
        // A write first, alone: PgBouncer holds it while it tries to log in again.
        let started = performance.now();
        expect((await patch(url, 12)).status).toBe(503);
        expect(performance.now() - started).toBeLessThan(15_000);
        started = performance.now();
        const answers = await Promise.all([
          fetch(`${url}/inventory`, { headers: auth }),
          fetch(`${url}/inventory/1`, { headers: auth }),
          patch(url, 12),
          fetch(url.replace(/\/v1$/, "/healthz")),
        ]);
        expect(answers.map((response) => response.status)).toEqual([503, 503, 503, 503]);
        expect(performance.now() - started).toBeLessThan(15_000);
        // Told as a warning naming the database, never as a fault with a stack (the log is
        // written a moment after the answer).
        const logged = () =>
          server
            ?.stderr()
            .split("\n")
            .filter((line) => line.startsWith("{"))
            .map((line) => JSON.parse(line) as { level: number; msg: string; reason?: string }) ??
          [];
        await eventually("the 503s in the log", () =>
          logged().some(
            (line) =>
              line.msg === "request refused" &&
              /PostgreSQL database postgres on 127\.0\.0\.1:\d+ is unreachable/.test(
                line.reason ?? "",
              ),
          ),
        );
        expect(logged().filter((line) => line.level >= 50)).toEqual([]);

        // A stop with a request held by PgBouncer ends within the same bound: the request is
        // sent whole before the signal, and is answered 503 (not cut off) as the server closes.
        const request = http.get(`${url}/inventory/1`, { headers: auth });
        const held = new Promise<number | undefined>((resolve) => {
          request.on("response", (response) => {
            response.resume();
            resolve(response.statusCode);
          });
          request.on("error", () => {
            resolve(undefined);
          });
        });
        await once(request, "finish");
        const stopping = performance.now();
        expect(await server.stop("SIGTERM")).toBe(0);
        expect(performance.now() - stopping).toBeLessThan(15_000);
        expect(await held).toBe(503);
        server = undefined;

        // A start with the database gone behind PgBouncer: exit 3 within the connect time-out.
        const starting = performance.now();
        const refused = await startServer({ databaseUrl, env }).then(
          () => "started",
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
        expect(refused).toMatch(
          /^petstore serve exited with 3; stderr:\nerror: cannot use PostgreSQL database postgres on 127\.0\.0\.1:\d+: /,
        );
        expect(performance.now() - starting).toBeLessThan(15_000);
      }, 60_000);
    });
  },
  ["pgbouncer-transaction"],
);
