/**
 * Conditional and exactly-once writes against the real `petstore serve`: idempotency records
 * survive `kill -9`, and If-Match holds across separate connections and processes.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { Agent, fetch as undiciFetch } from "undici";
import { afterEach, beforeEach, expect, it } from "vitest";
import { API_KEY, startServer, tempDir, type RunningServer } from "./helpers.js";

const auth = { authorization: `Bearer ${API_KEY}` };

let temp: ReturnType<typeof tempDir>;
let running: RunningServer[] = [];
beforeEach(() => {
  temp = tempDir();
});
afterEach(async () => {
  await Promise.all(running.map((server) => server.stop("SIGKILL")));
  running = [];
  temp.remove();
});

async function start(dbPath: string): Promise<RunningServer> {
  const server = await startServer({
    dbPath,
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

it("replays an idempotent PATCH after the server was killed with SIGKILL and restarted", async () => {
  const dbPath = join(temp.dir, "petstore.db");
  const first = await start(dbPath);
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

  const second = await start(dbPath);
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

it('lets exactly one of 20 PATCHes with If-Match "100" from 20 processes pass', async () => {
  const server = await start(join(temp.dir, "race.db"));
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

it('lets exactly one of 20 PATCHes with If-Match "100" on 20 connections pass, and applies one of 10 with one key', async () => {
  const server = await start(join(temp.dir, "connections.db"));
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
