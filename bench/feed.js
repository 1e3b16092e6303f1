// The change feed rows of `npm run bench` (BENCH_ONLY=feed runs them alone): walking 100,000
// changes through GET /v1/inventory/changes (limit 1000) on SQLite and on PostgreSQL, and
// PATCH throughput with one long-polling follower (the CLI's `inventory changes --follow`)
// against none.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { startBenchCluster } from "./postgres-cluster.js";

const CHANGES = 100_000;

/** Walks the feed of `server` from 0 with limit 1000 until a short page; ms and records. */
async function walk(server, key) {
  const start = process.hrtime.bigint();
  let after = 0;
  let records = 0;
  for (;;) {
    const response = await fetch(`${server.url}/inventory/changes?after=${after}&limit=1000`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const page = await response.json();
    records += page.changes.length;
    after = page.next;
    if (page.changes.length < 1000) break;
  }
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, records };
}

/** The median walk of `rounds` walks (after one warm-up walk). */
async function timeWalks(tools, server, label) {
  const { log, median, rounds } = tools;
  await walk(server, tools.key);
  const times = [];
  for (let round = 1; round <= rounds; round++) {
    log(`${label}: round ${round}/${rounds}`);
    const { ms, records } = await walk(server, tools.key);
    if (records !== CHANGES) throw new Error(`${label}: walked ${records} of ${CHANGES} changes`);
    times.push(ms);
  }
  return { seconds: median(times) / 1000, spread: times.map((ms) => ms / 1000) };
}

/** The store's latest seq: GET /v1/inventory's Inventory-Seq. */
async function latestSeq(server, key) {
  const response = await fetch(`${server.url}/inventory`, {
    headers: { authorization: `Bearer ${key}` },
  });
  await response.arrayBuffer();
  const seq = response.headers.get("inventory-seq");
  if (seq === null) throw new Error("GET /v1/inventory answered without Inventory-Seq");
  return seq;
}

/**
 * The follower: the real CLI, `petstore inventory changes --follow --json`, its output thrown
 * away, as a process of its own beside the load generator (core 0 when pinned, as a follower
 * on another machine would not share the server's core). It starts caught up, after the
 * latest seq: from the start of the feed it would first re-read every change the rounds
 * before wrote (by the last round, hundreds of full pages at full speed).
 */
async function startFollower(tools, server) {
  const after = await latestSeq(server, tools.key);
  const args = [
    ...[tools.bin, "--base-url", server.url, "inventory", "changes", "--follow", "--json"],
    ...["--after", after],
  ];
  const [command, argv] = tools.pinned
    ? ["taskset", ["-c", "0", process.execPath, ...args]]
    : [process.execPath, args];
  const child = spawn(command, argv, {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PETSTORE_API_KEY: tools.key },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = once(child, "exit");
  return {
    async stop() {
      child.kill("SIGTERM");
      const [code] = await exited;
      if (code !== 143) throw new Error(`the follower exited ${code}: ${stderr}`);
    },
  };
}

/** Adds the feed rows (targets and figures) to the report. */
export async function feedBenchmarks(tools) {
  const { seededDb, startOurs, targets, figures, fmt, spread, load, compareAtLeast } = tools;

  // 100,000 pets seeded: 100,000 history records, the seed's.
  const server = await startOurs(await seededDb("feed.db", CHANGES));
  const onSqlite = await timeWalks(tools, server, "walking 100,000 changes, SQLite");
  await server.stop();
  targets.push({
    what: "walking 100,000 changes through the feed, SQLite (s)",
    value: onSqlite.seconds,
    target: 1,
  });

  // PATCH with one long-polling follower against none, same server, rounds interleaved.
  const patchServer = await startOurs(await seededDb("feed-patch.db", 1000));
  await compareAtLeast(
    "PATCH with one long-polling feed follower, requests/s vs without",
    0.95,
    "PATCH /v1/inventory/{random of 1,000}, one follower long-polling the feed",
    "the same, no follower",
    async (options) => {
      const follower = await startFollower(tools, patchServer);
      try {
        return await load(patchServer, "/", { requests: tools.patchRequests(1000), ...options });
      } finally {
        await follower.stop();
      }
    },
    (options) => load(patchServer, "/", { requests: tools.patchRequests(1000), ...options }),
  );
  await patchServer.stop();

  tools.log("walking the feed on PostgreSQL: starting a cluster");
  const cluster = await startBenchCluster(tools.pinned ? { cores: "0" } : {});
  try {
    const url = await cluster.createDatabase("bench_feed");
    const serve = (seed = []) =>
      tools.startProcess([tools.bin, "serve", "--port", "0", ...seed], {
        PETSTORE_DATABASE_URL: url,
      });
    await (await serve(["--seed", tools.writeSeed(CHANGES)])).stop();
    const pgServer = await serve();
    const onPostgres = await timeWalks(tools, pgServer, "walking 100,000 changes, PostgreSQL");
    await pgServer.stop();
    targets.push({
      what: "walking 100,000 changes through the feed, PostgreSQL (s)",
      value: onPostgres.seconds,
      target: 2,
    });
    figures.push({
      what: "walking 100,000 changes through the feed (limit 1000): SQLite; PostgreSQL",
      shown: `${fmt(onSqlite.seconds)} s (${spread(onSqlite.spread)} s); ${fmt(onPostgres.seconds)} s (${spread(onPostgres.spread)} s)`,
    });
  } finally {
    await cluster.destroy();
  }
}
