// The count rows of `npm run bench` (run with the batch rows; BENCH_ONLY=count runs them
// alone): `petstore inventory count` (issue 32), as a stocktake posts it, and the server's
// batch of counts against a batch of sets.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { runMeasured } from "./batch.js";
import { startBenchCluster } from "./postgres-cluster.js";

const now = () => process.hrtime.bigint();
const msSince = (start) => Number(now() - start) / 1e6;

/** A fresh $XDG_STATE_HOME for one run, so its session's journal is the only one there. */
function stateHome(tools, name) {
  const home = tools.join(tools.dir, name);
  mkdirSync(home, { recursive: true });
  return home;
}

/** The session journals under `home` (as src/count/journal.ts places them). */
function journals(tools, home) {
  const counts = tools.join(home, "petstore", "counts");
  if (!existsSync(counts)) return [];
  return readdirSync(counts)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => tools.join(counts, name));
}

/** Whether the one session under `home` ends with its `posted` entry. */
function posted(tools, home) {
  const [journal, ...more] = journals(tools, home);
  if (journal === undefined || more.length > 0) return false;
  const last = readFileSync(journal, "utf8").trimEnd().split("\n").at(-1);
  return JSON.parse(last).type === "posted";
}

async function request(tools, server, method, path, body) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${tools.key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body }),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${answer.message}`);
  return { answer, seq: response.headers.get("inventory-seq") };
}

/** The quantity of every pet, by petId. */
async function quantities(tools, server) {
  const { answer } = await request(tools, server, "GET", "/inventory");
  return new Map(answer.map((item) => [Number(item.petId), item.quantity]));
}

/** Sets pets 1…`pets` to `quantityOf(petId)` in one batch (not timed: between rounds). */
async function setAll(tools, server, pets, quantityOf) {
  const changes = Array.from({ length: pets }, (_, i) => ({
    petId: i + 1,
    quantity: quantityOf(i + 1),
  }));
  await request(tools, server, "POST", "/inventory/batch", JSON.stringify({ changes }));
}

/** Throws unless every pet 1…`pets` holds `expected(petId)`: the run's counts were posted. */
async function checkQuantities(tools, server, pets, expected, label) {
  const held = await quantities(tools, server);
  for (let petId = 1; petId <= pets; petId++) {
    if (held.get(petId) !== expected(petId)) {
      throw new Error(`${label}: pet ${petId} holds ${held.get(petId)}, not ${expected(petId)}`);
    }
  }
}

/** Resolves once `test()` holds, checking every 20 ms; rejects if `child` exits first. */
async function until(test, child, what) {
  while (!test()) {
    if (child.exitCode !== null)
      throw new Error(`inventory count exited ${child.exitCode} ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * One session of `pets` counted pets, posted by `inventory count --yes` (lines on a pipe):
 * every `ID =N` line is written to its stdin; once the session's journal holds all of them
 * (one `set` entry a line: the CLI appends and fsyncs an entry before it takes the next line),
 * `done` is written and stdin closed. Timed: from writing `done` to the process's
 * exit, which is what posting costs a person who typed `done`: the review (printed, as
 * without --json), one atomic batch of `pets` counts, the report, the `posted` entry, exit.
 * Process start-up and the reads of the pets' first lines (one GET each) are before it.
 * With `json`, the same with --json: no review is printed, and the report is JSON.
 */
async function postSession(tools, server, pets, round, json) {
  const { bin, onEveryCore, env } = tools;
  const home = stateHome(tools, `count-post-${round}${json ? "-json" : ""}`);
  // New counts every run (a run's counts differ from the last run's), checked once posted.
  const countOf = (petId) => (2 * round + (json ? 1 : 0)) * 100 + (petId % 50);
  const [command, argv] = onEveryCore([
    bin,
    "--base-url",
    server.url,
    "inventory",
    "count",
    "--yes",
    ...(json ? ["--json"] : []),
  ]);
  const started = now();
  const child = spawn(command, argv, {
    env: { ...env, XDG_STATE_HOME: home },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stdout.resume();
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = once(child, "exit").then(([code]) => ({ code, at: now() }));
  const lines = Array.from({ length: pets }, (_, i) => `${i + 1} =${countOf(i + 1)}\n`);
  child.stdin.write(lines.join(""));
  // The counted lines' entries (`set`), not the header or the store's change it noted (`seen`).
  const journalLines = () => {
    const [journal] = journals(tools, home);
    if (journal === undefined) return 0;
    return readFileSync(journal, "utf8")
      .split("\n")
      .filter((line) => line.startsWith('{"type":"set"')).length;
  };
  try {
    await until(() => journalLines() === pets, child, `before reading ${pets} lines`);
  } catch (error) {
    throw new Error(`${error.message}: ${stderr.slice(0, 2000)}`);
  }
  const readMs = msSince(started);
  const done = now();
  child.stdin.end("done\n");
  const { code, at } = await exited;
  const postMs = Number(at - done) / 1e6;
  if (code !== 0 || !posted(tools, home)) {
    throw new Error(`inventory count --yes exited ${code}: ${stderr.slice(0, 2000)}`);
  }
  await checkQuantities(tools, server, pets, countOf, `session of round ${round}`);
  return { readMs, postMs };
}

/**
 * `lines` `ID` lines spread over pets 1…`pets` (each pet `lines / pets` times) and `done`,
 * piped into `inventory count --yes` as `printf … |` would: the wall time of the whole
 * process, from its start to its exit (reading every pet at its first line, journaling every
 * line, the review, posting one atomic batch of `pets` counts, the report).
 */
function pipedSession(tools, server, lines, pets, round) {
  const home = stateHome(tools, `count-piped-${round}`);
  const input = Array.from({ length: lines }, (_, i) => `${(i % pets) + 1}\n`).join("") + "done\n";
  const run = runMeasured(
    tools,
    [tools.bin, "--base-url", server.url, "inventory", "count", "--yes"],
    { env: { XDG_STATE_HOME: home }, input },
  );
  if (!posted(tools, home)) throw new Error(`piped session of round ${round} was not posted`);
  return run;
}

/**
 * One POST /v1/inventory/batch of `body`, as a client on the same machine sees it answered
 * (sending the body, the server's work, reading the answer), in ms.
 */
async function timeBatch(tools, server, body, pets) {
  const start = now();
  const { answer } = await request(tools, server, "POST", "/inventory/batch", body);
  const ms = msSince(start);
  if (answer.changed !== pets) throw new Error(`a batch changed ${answer.changed} of ${pets}`);
  return ms;
}

/**
 * The server's batch of `pets` counts against batches of `pets` sets, on one server, rounds
 * interleaved (counts, sets, sets with refs), each timed as timeBatch does. Every batch is
 * atomic, as a session posts its counts, and changes every pet. Counts are as the CLI posts
 * them: `{petId, count, asOf, ref}`, asOf the Inventory-Seq of a GET /v1/inventory just
 * before (not timed), refs new each round so that they apply. Sets are `{petId, quantity}`,
 * as `inventory apply` sends them, and again with a new ref each, to tell what a count costs
 * beyond a ref. Two warm-up rounds, then `rounds`; the ratio is the median of the rounds'.
 */
async function countVersusSets(tools, server, pets, rounds, label) {
  const runs = { counts: [], sets: [], setsWithRefs: [], ratios: [], refRatios: [] };
  const ids = Array.from({ length: pets }, (_, i) => i + 1);
  for (let round = 1; round <= rounds + 2; round++) {
    tools.log(`${label}: round ${round}/${rounds + 2} (2 warm-up)`);
    const value = (variant, petId) => 100 * (3 * round + variant) + (petId % 7);
    const { seq } = await request(tools, server, "GET", "/inventory");
    if (seq === null) throw new Error("GET /v1/inventory has no Inventory-Seq header");
    const counts = ids.map((petId) => ({
      petId,
      count: value(0, petId),
      asOf: Number(seq),
      ref: `bench-count:${round}:${petId}`,
    }));
    const sets = ids.map((petId) => ({ petId, quantity: value(1, petId) }));
    const setsWithRefs = ids.map((petId) => ({
      petId,
      quantity: value(2, petId),
      ref: `bench-set:${round}:${petId}`,
    }));
    const countMs = await timeBatch(
      tools,
      server,
      JSON.stringify({ atomic: true, changes: counts }),
      pets,
    );
    const setMs = await timeBatch(
      tools,
      server,
      JSON.stringify({ atomic: true, changes: sets }),
      pets,
    );
    const refMs = await timeBatch(
      tools,
      server,
      JSON.stringify({ atomic: true, changes: setsWithRefs }),
      pets,
    );
    if (round <= 2) continue;
    runs.counts.push(countMs);
    runs.sets.push(setMs);
    runs.setsWithRefs.push(refMs);
    runs.ratios.push(countMs / setMs);
    runs.refRatios.push(countMs / refMs);
  }
  return runs;
}

/** Adds the count rows (targets and figures) to the report. */
export async function countBenchmarks(tools) {
  const { log, median, fmt, spread, targets, figures, seededDb, startOurs } = tools;
  const rounds = tools.rounds;
  const seconds = (values) => values.map((ms) => ms / 1000);

  // 1. Posting a session of 5,000 counted pets.
  const postPets = 5_000;
  const postServer = await startOurs(await seededDb("count-post.db", postPets));
  const posts = [];
  const postsJson = [];
  for (let round = 1; round <= rounds; round++) {
    log(
      `inventory count, posting ${postPets} counted pets (and with --json): round ${round}/${rounds}`,
    );
    posts.push(await postSession(tools, postServer, postPets, round, false));
    postsJson.push(await postSession(tools, postServer, postPets, round, true));
  }
  await postServer.stop();
  const postMs = posts.map((run) => run.postMs);
  targets.push({
    what: "`inventory count --yes`: posting a session of 5,000 counted pets, `done` to exit (s)",
    value: median(postMs) / 1000,
    target: 0.5,
  });
  const jsonMs = postsJson.map((run) => run.postMs);
  const readMs = posts.map((run) => run.readMs);
  figures.push({
    what: "inventory count --yes, a session of 5,000 `ID =N` lines: from `done` to exit (the review table, one atomic batch of 5,000 counts, the report); the same with --json (no review, a JSON report); before `done`, start-up and reading the 5,000 pets",
    shown: `${fmt(median(postMs) / 1000)} s (${spread(seconds(postMs))} s); --json ${fmt(median(jsonMs) / 1000)} s (${spread(seconds(jsonMs))} s); before \`done\` ${fmt(median(readMs) / 1000)} s (${spread(seconds(readMs))} s)`,
  });

  // 2. 10,000 piped lines over 1,000 pets, read to posted.
  const lines = 10_000;
  const pets = 1_000;
  const pipedServer = await startOurs(await seededDb("count-piped.db", pets));
  const seedQuantity = (petId) => (petId - 1) % 50; // as writeSeed makes them
  const piped = [];
  for (let round = 1; round <= rounds; round++) {
    log(`inventory count, ${lines} piped lines over ${pets} pets: round ${round}/${rounds}`);
    // Each round counts every pet 10 from the seed's quantities, so every round changes them.
    if (round > 1) await setAll(tools, pipedServer, pets, seedQuantity);
    piped.push(pipedSession(tools, pipedServer, lines, pets, round));
    await checkQuantities(tools, pipedServer, pets, () => lines / pets, `piped round ${round}`);
  }
  await pipedServer.stop();
  const pipedMs = piped.map((run) => run.ms);
  targets.push({
    what: "`inventory count --yes`: 10,000 piped lines over 1,000 pets, read to posted (s)",
    value: median(pipedMs) / 1000,
    target: 3,
  });
  figures.push({
    what: "inventory count --yes, 10,000 piped `ID` lines over 1,000 pets and `done`: the whole process",
    shown: `${fmt(median(pipedMs) / 1000)} s (${spread(seconds(pipedMs))} s), CLI peak RSS ${fmt(median(piped.map((run) => run.rssMb)))} MB; journal on ${filesystemOf(tools.dir)}`,
  });

  // 3. The server's batch of 10,000 counts against one of 10,000 sets: SQLite, PostgreSQL.
  const batchPets = 10_000;
  const batchRounds = 11;
  const report = (engine, runs) => {
    targets.push({
      what: `${engine}: a batch of 10,000 counts vs a batch of 10,000 sets, time`,
      ratio: median(runs.ratios),
      target: 1.5,
      atLeast: false,
    });
    figures.push({
      what: `${engine}: one atomic batch of 10,000 counts (asOf the latest seq, new refs); of 10,000 sets; of 10,000 sets with new refs (ms, answered to a local client)`,
      shown: `${fmt(median(runs.counts))} (${spread(runs.counts)}); ${fmt(median(runs.sets))} (${spread(runs.sets)}); ${fmt(median(runs.setsWithRefs))} (${spread(runs.setsWithRefs)}): counts / sets ${median(runs.ratios).toFixed(2)} × (${spread(runs.ratios)}), counts / sets with refs ${median(runs.refRatios).toFixed(2)} × (${spread(runs.refRatios)})`,
    });
  };
  const onSqlite = await startOurs(await seededDb("count-batch.db", batchPets));
  report(
    "SQLite",
    await countVersusSets(
      tools,
      onSqlite,
      batchPets,
      batchRounds,
      "count batch vs set batch, SQLite",
    ),
  );
  await onSqlite.stop();

  log("count batch vs set batch on PostgreSQL: starting a cluster");
  const cluster = await startBenchCluster(tools.pinned ? { cores: "0" } : {});
  try {
    const url = await cluster.createDatabase("bench_counts");
    const serve = (seed = []) =>
      tools.startProcess([tools.bin, "serve", "--port", "0", ...seed], {
        PETSTORE_DATABASE_URL: url,
      });
    await (await serve(["--seed", tools.writeSeed(batchPets)])).stop();
    const onPostgres = await serve();
    report(
      "PostgreSQL",
      await countVersusSets(
        tools,
        onPostgres,
        batchPets,
        batchRounds,
        "count batch vs set batch, PostgreSQL",
      ),
    );
    await onPostgres.stop();
  } finally {
    await cluster.destroy();
  }
}

/** The type of the filesystem holding `path` (the journal's fsyncs cost what it makes them). */
function filesystemOf(path) {
  const found = spawnSync("findmnt", ["-n", "-o", "FSTYPE", "--target", path], {
    encoding: "utf8",
  });
  return found.status === 0 ? found.stdout.trim() : "an unknown filesystem";
}
