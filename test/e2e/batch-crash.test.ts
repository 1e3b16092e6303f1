/**
 * A batch is one transaction, on a real server killed with SIGKILL: every `changed` result of
 * an acknowledged batch is there after a restart, and a batch in flight when the server died
 * is there whole or not at all. On SQLite and on PostgreSQL, directly and through PgBouncer.
 */
import { afterEach, expect, it } from "vitest";
import {
  API_KEY,
  describeEachStore,
  freshStore,
  startServer,
  type RunningServer,
  type TestStore,
} from "./support/servers.js";

const PET_COUNT = 200;
const START = 1_000;
const PETS = Array.from({ length: PET_COUNT }, (_, i) => ({
  petId: i + 1,
  name: `Pet ${i + 1}`,
  status: "available" as const,
  quantity: START,
}));
const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };

/** A batch of `size` sales (-1 each) spread over every pet, refs named by `run`. */
function sales(run: string, size: number): string {
  const changes = Array.from({ length: size }, (_, i) => ({
    petId: (i % PET_COUNT) + 1,
    delta: -1,
    ref: `${run}:${i}`,
  }));
  return JSON.stringify({ changes });
}

async function totalStock(server: RunningServer): Promise<number> {
  const response = await fetch(`${server.url}/inventory`, { headers });
  const items = (await response.json()) as { quantity: number }[];
  return items.reduce((sum, item) => sum + item.quantity, 0);
}

async function historyLength(server: RunningServer, petId: number): Promise<number> {
  const response = await fetch(`${server.url}/inventory/${petId}/history?limit=1000`, { headers });
  return ((await response.json()) as unknown[]).length;
}

describeEachStore("a batch and SIGKILL (%s)", (kind) => {
  let store: TestStore | undefined;
  let servers: RunningServer[] = [];
  const start = async (seed = false) => {
    if (!store) throw new Error("no store");
    const server = await startServer({ ...store.options, ...(seed ? { seed: PETS } : {}) });
    servers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(servers.map((server) => server.stop("SIGKILL")));
    servers = [];
    await store?.remove();
    store = undefined;
  });

  it("keeps every changed row of a batch acknowledged just before the kill", async () => {
    store = await freshStore(kind);
    const server = await start(true);
    const response = await fetch(`${server.url}/inventory/batch`, {
      method: "POST",
      headers,
      body: sales("ack", 5_000),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { changed: number };
    server.process.kill("SIGKILL");
    await server.stop();
    expect(body.changed).toBe(5_000);

    const restarted = await start();
    expect(await totalStock(restarted)).toBe(PET_COUNT * START - 5_000);
    // Seed record + 25 sales per pet.
    expect(await historyLength(restarted, 1)).toBe(1 + 5_000 / PET_COUNT);
    // And the refs are kept: the same batch again changes nothing.
    const again = await fetch(`${restarted.url}/inventory/batch`, {
      method: "POST",
      headers,
      body: sales("ack", 5_000),
    });
    expect(await again.json()).toMatchObject({ changed: 0, unchanged: 5_000 });
  });

  it("keeps a batch in flight at the kill whole or not at all", async () => {
    store = await freshStore(kind);
    let expected = PET_COUNT * START;
    let server = await start(true);
    // How long a batch of 10,000 takes here, from sending to the answer: the kills land at
    // fractions of it, from while the body is read to around the commit.
    const timed = performance.now();
    const warmUp = await fetch(`${server.url}/inventory/batch`, {
      method: "POST",
      headers,
      body: sales("warm-up", 10_000),
    });
    expect(warmUp.status).toBe(200);
    const answerMs = performance.now() - timed;
    expected -= 10_000;
    const seen = new Set<string>();
    const fractions = [0.1, 0.4, 0.7, 0.85, 1, 1.2];
    for (const [round, fraction] of fractions.entries()) {
      const body = sales(`flight-${round}`, 10_000);
      const sent = fetch(`${server.url}/inventory/batch`, { method: "POST", headers, body }).then(
        (response) => response.status,
        () => "no answer",
      );
      await new Promise((resolve) => setTimeout(resolve, answerMs * fraction));
      server.process.kill("SIGKILL");
      const status = await sent;
      await server.stop();
      server = await start();
      const total = await totalStock(server);
      const history = await historyLength(server, 1);
      if (total === expected) {
        expect(status).not.toBe(200);
        seen.add("none");
      } else {
        expect(total).toBe(expected - 10_000);
        expected = total;
        seen.add("all");
      }
      // History agrees with the stock: every pet's records are the seed plus its sales.
      expect(history).toBe(1 + (PET_COUNT * START - expected) / PET_COUNT);
    }
    // Whichever it was, nothing in between (say which cases this run met, for the log).
    console.log(
      `${kind}: a batch took ${Math.round(answerMs)} ms; killed in flight, they ended as ${[...seen].join(" and ")}`,
    );
  });
});
