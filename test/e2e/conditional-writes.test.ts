/**
 * Conditional and exactly-once writes against the real `petstore serve`, on SQLite and on
 * PostgreSQL: idempotency records survive `kill -9`, and If-Match holds across separate
 * connections and processes.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Agent, fetch as undiciFetch } from "undici";
import { afterEach, expect } from "vitest";
import {
  API_KEY,
  freshStore,
  itEachStore,
  startServer,
  type RunningServer,
  type StoreKind,
  type TestStore,
} from "./support/servers.js";

const auth = { authorization: `Bearer ${API_KEY}` };

let stores: TestStore[] = [];
let running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.map((server) => server.stop("SIGKILL")));
  running = [];
  for (const store of stores) await store.remove();
  stores = [];
});

/** A new store of `kind` for one test. */
async function storeOf(kind: StoreKind): Promise<TestStore> {
  const store = await freshStore(kind);
  stores.push(store);
  return store;
}

async function start(store: TestStore): Promise<RunningServer> {
  const server = await startServer({
    ...store.options,
    seed: [{ petId: 1, name: "Rex", status: "available", quantity: 100 }],
  });
  running.push(server);
  return server;
}

const patch = (url: string, quantity: number, headers: Record<string, string>) =>
  fetch(`${url}/inventory/1`, {
    method: "PATCH",
    headers: { ...auth, "content-type": "application/json", ...headers },
    body: JSON.stringify({ quantity }),
  });

const quantityOf = async (url: string) =>
  ((await (await fetch(`${url}/inventory/1`, { headers: auth })).json()) as { quantity: number })
    .quantity;

itEachStore("%s: replays an idempotent PATCH after kill -9 and a restart", async (kind) => {
  const store = await storeOf(kind);
  const first = await start(store);
  const headers = { "idempotency-key": "e2e-crash-1", "if-match": '"100"' };
  const applied = await patch(first.url, 42, headers);
  const appliedBody = await applied.text();
  expect(applied.status).toBe(200);
  expect(applied.headers.get("etag")).toBe('"42"');
  const rejected = await patch(first.url, 7, {
    "idempotency-key": "e2e-crash-2",
    "if-match": '"1"',
  });
  const rejectedBody = await rejected.text();
  expect(rejected.status).toBe(412);
  // The 200 and the 412 were acknowledged: the records are on disk. Kill without a chance to flush.
  await first.stop("SIGKILL");

  const second = await start(store);
  // Someone else changes the entry meanwhile; the replays must not care.
  const other = await patch(second.url, 55, {});
  expect(other.status).toBe(200);

  const replay = await patch(second.url, 42, headers);
  expect(replay.status).toBe(200);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.headers.get("etag")).toBe('"42"');
  expect(await replay.text()).toBe(appliedBody);

  const replay412 = await patch(second.url, 7, {
    "idempotency-key": "e2e-crash-2",
    "if-match": '"1"',
  });
  expect(replay412.status).toBe(412);
  expect(replay412.headers.get("idempotent-replayed")).toBe("true");
  expect(replay412.headers.get("etag")).toBe('"42"');
  expect(await replay412.text()).toBe(rejectedBody);

  const reused = await patch(second.url, 43, headers);
  expect(reused.status).toBe(422);
  expect(await reused.json()).toMatchObject({ code: "idempotency_key_reused", status: 422 });
  expect(await quantityOf(second.url)).toBe(55);
});

/** A child process that sends one PATCH on its own connection and prints status and ETag. */
const CLIENT = `
const [url, key, quantity] = process.argv.slice(1);
const response = await fetch(url + "/inventory/1", {
  method: "PATCH",
  headers: { authorization: "Bearer " + key, "content-type": "application/json", "if-match": '"100"' },
  body: JSON.stringify({ quantity: Number(quantity) }),
});
await response.text();
process.stdout.write(response.status + " " + response.headers.get("etag"));
`;

itEachStore('%s: one of 20 If-Match "100" PATCHes from 20 processes passes', async (kind) => {
  const server = await start(await storeOf(kind));
  const clients = Array.from({ length: 20 }, (_, i) => {
    const child = spawn(
      process.execPath,
      ["--input-type=module", "-e", CLIENT, server.url, API_KEY, String(i + 1)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    return once(child, "exit").then(() => out);
  });
  const answers = await Promise.all(clients);
  const winners = answers.filter((answer) => answer.startsWith("200 "));
  expect(winners).toHaveLength(1);
  const [winner = ""] = winners;
  const etag = winner.slice(4);
  expect(answers.filter((answer) => answer === `412 ${etag}`)).toHaveLength(19);
  expect(`"${await quantityOf(server.url)}"`).toBe(etag);
});

itEachStore("%s: 20 connections: one If-Match passes; one key applies once", async (kind) => {
  const server = await start(await storeOf(kind));
  const responses = await Promise.all(
    Array.from({ length: 20 }, async (_, i) => {
      // A dispatcher per request: 20 separate TCP connections.
      const dispatcher = new Agent({ connections: 1 });
      const response = await undiciFetch(`${server.url}/inventory/1`, {
        method: "PATCH",
        headers: { ...auth, "content-type": "application/json", "if-match": '"100"' },
        body: JSON.stringify({ quantity: i }),
        dispatcher,
      });
      await response.text();
      await dispatcher.close();
      return { status: response.status, etag: response.headers.get("etag") };
    }),
  );
  const ok = responses.filter((response) => response.status === 200);
  expect(ok).toHaveLength(1);
  expect(responses.filter((r) => r.status === 412 && r.etag === ok[0]?.etag)).toHaveLength(19);

  const keyed = await Promise.all(
    Array.from({ length: 10 }, () => patch(server.url, 77, { "idempotency-key": "one-change" })),
  );
  const replayed = keyed.map((response) => response.headers.get("idempotent-replayed"));
  expect(keyed.map((response) => response.status)).toEqual(Array(10).fill(200));
  expect(replayed.filter((value) => value === null)).toHaveLength(1);
  expect(replayed.filter((value) => value === "true")).toHaveLength(9);
});
