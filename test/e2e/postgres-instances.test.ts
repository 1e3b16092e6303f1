/**
 * Two real `petstore serve` processes on one PostgreSQL database, as behind a load balancer:
 * both start together on an empty database, a GET on one sees every PATCH the other has
 * acknowledged, a stopped instance holds nobody's writes up, and concurrent conditional
 * writes through both lose nothing; the database reached directly and through PgBouncer in
 * transaction and in session mode.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createTestDatabase,
  forEachRoute,
  type TestDatabase,
} from "../support/postgres-database.js";
import { API_KEY, startServer, type RunningServer } from "./support/servers.js";

const auth = { authorization: `Bearer ${API_KEY}` };

forEachRoute("two instances on one PostgreSQL database", (route, name) => {
  describe(name, () => {
    let database: TestDatabase;
    let a: RunningServer;
    let b: RunningServer;
    beforeAll(async () => {
      database = await createTestDatabase(route);
      // The same moment, an empty database: both migrate and seed under advisory locks.
      [a, b] = await Promise.all([
        startServer({ databaseUrl: database.url, args: ["--demo"] }),
        startServer({ databaseUrl: database.url, args: ["--demo"] }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([a.stop(), b.stop()]);
      await database.drop();
    });

    const patch = (
      url: string,
      petId: number,
      quantity: number,
      headers: Record<string, string> = {},
    ) =>
      fetch(`${url}/inventory/${petId}`, {
        method: "PATCH",
        headers: { ...auth, "content-type": "application/json", ...headers },
        body: JSON.stringify({ quantity }),
      });

    const inventory = async (url: string) =>
      (await (await fetch(`${url}/inventory`, { headers: auth })).json()) as {
        petId: number;
        quantity: number;
      }[];

    it("starts both instances on an empty database at once, with one copy of the demo pets", async () => {
      expect(a.stdout()).toMatch(/^listening on /);
      expect(b.stdout()).toMatch(/^listening on /);
      const [fromA, fromB] = await Promise.all([inventory(a.url), inventory(b.url)]);
      expect(fromA).toEqual(fromB);
      expect(new Set(fromA.map((item) => item.petId)).size).toBe(fromA.length);
    });

    it("never shows the old value in a GET on one instance after a PATCH acknowledged by the other, 2,000 times", async () => {
      // Warm both caches first, so a stale cached inventory would show.
      await Promise.all([inventory(a.url), inventory(b.url)]);
      for (let round = 0; round < 2_000; round++) {
        const [writer, reader] = round % 2 === 0 ? [a, b] : [b, a];
        const quantity = 500 + round;
        expect((await patch(writer.url, 1, quantity)).status).toBe(200);
        const seen = (await inventory(reader.url)).find((item) => item.petId === 1)?.quantity;
        if (seen !== quantity) {
          throw new Error(
            `round ${round}: wrote ${quantity} through one instance, the other showed ${seen}`,
          );
        }
      }
    }, 120_000);

    it("goes on writing at its usual latency while the other instance is stopped, which shows the writes as soon as it runs again", async () => {
      await inventory(b.url);
      const timed = async (quantity: number) => {
        const started = performance.now();
        expect((await patch(a.url, 1, quantity)).status).toBe(200);
        return performance.now() - started;
      };
      for (let round = 0; round < 5; round++) await timed(4200 + round);
      b.process.kill("SIGSTOP");
      const took: number[] = [];
      try {
        // As a long GC pause or a frozen container: no write waits for the stopped instance.
        for (let round = 0; round < 20; round++) took.push(await timed(4242 + round));
      } finally {
        b.process.kill("SIGCONT");
      }
      // Usually 2-7 ms each; a write that waited for the stopped instance (as one did while it
      // held a cache lease) took a second. The margin is for a loaded CI machine.
      expect(Math.max(...took)).toBeLessThan(600);
      expect((await inventory(b.url)).find((item) => item.petId === 1)?.quantity).toBe(4261);
    }, 30_000);

    it("loses no decrement when 20 clients adjust one entry concurrently through both instances", async () => {
      const start = 10_000;
      expect((await patch(a.url, 2, start)).status).toBe(200);
      const perClient = 5;
      let conflicts = 0;
      const client = async (index: number) => {
        for (let done = 0; done < perClient;) {
          const via = (index + done) % 2 === 0 ? a : b;
          const read = await fetch(`${via.url}/inventory/2`, { headers: auth });
          const { quantity } = (await read.json()) as { quantity: number };
          const written = await patch(via.url, 2, quantity - 1, {
            "if-match": read.headers.get("etag") ?? "",
            "idempotency-key": randomUUID(),
          });
          if (written.status === 200) done++;
          else if (written.status === 412) conflicts++;
          else throw new Error(`unexpected ${written.status}: ${await written.text()}`);
        }
      };
      await Promise.all(Array.from({ length: 20 }, (_, index) => client(index)));
      const final = (await inventory(b.url)).find((item) => item.petId === 2)?.quantity;
      expect(final).toBe(start - 20 * perClient);
      // The clients did race: some conditional writes found the entry changed.
      expect(conflicts).toBeGreaterThan(0);
    }, 60_000);
  });
});
